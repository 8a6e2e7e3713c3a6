package dev.ratelimiter.it.ops;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL queries of the operators' files in {@code ops/} (docs/operations.md#metrics): the Grafana dashboard
 * ({@code ops/grafana/rate-limiter-dashboard.json}, read with JSON-P) and the Prometheus alert rules
 * ({@code ops/prometheus/rate-limiter-alerts.yml}, read with SnakeYAML). This module's test-jar carries both files
 * under {@code ops/}, so every server module reads the files of the build it tests.
 */
public final class OpsQueries {

    /** The dashboard as the test-jar carries it. */
    public static final String DASHBOARD = "ops/grafana/rate-limiter-dashboard.json";
    /** The alert rules as the test-jar carries them. */
    public static final String ALERT_RULES = "ops/prometheus/rate-limiter-alerts.yml";

    /** Grafana's {@code label_values(selector, label)} and {@code query_result(expression)} variable queries. */
    private static final Pattern LABEL_VALUES = Pattern.compile("(?s)\\s*label_values\\((.*),\\s*[A-Za-z_]\\w*\\s*\\)\\s*");
    private static final Pattern LABEL_VALUES_ONLY_LABEL = Pattern.compile("\\s*label_values\\(\\s*[A-Za-z_]\\w*\\s*\\)\\s*");
    private static final Pattern QUERY_RESULT = Pattern.compile("(?s)\\s*query_result\\((.*)\\)\\s*");

    private OpsQueries() {
    }

    /** Every query of the shipped dashboard, then of the shipped alert rules. */
    public static List<OpsQuery> shipped() {
        List<OpsQuery> queries = new ArrayList<>(dashboard(resource(DASHBOARD), "rate-limiter-dashboard.json"));
        queries.addAll(alertRules(resource(ALERT_RULES), "rate-limiter-alerts.yml"));
        return queries;
    }

    /**
     * The queries of a Grafana dashboard: each panel's targets' {@code expr} (also in the panels of a collapsed
     * row), and each query variable's query ({@code label_values(selector, label)}: the selector;
     * {@code query_result(expression)}: the expression).
     *
     * @throws IllegalArgumentException for a variable query of another kind, whose names this cannot find
     */
    public static List<OpsQuery> dashboard(String json, String file) {
        JsonObject dashboard;
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            dashboard = reader.readObject();
        }
        List<OpsQuery> queries = new ArrayList<>();
        panels(dashboard, file, queries);
        JsonObject templating = dashboard.getJsonObject("templating");
        if (templating != null) {
            for (JsonObject variable : templating.getJsonArray("list").getValuesAs(JsonObject.class)) {
                if ("query".equals(variable.getString("type", ""))) {
                    variableQuery(variable, file).ifPresent(queries::add);
                }
            }
        }
        return queries;
    }

    private static void panels(JsonObject container, String file, List<OpsQuery> queries) {
        if (!container.containsKey("panels")) {
            return;
        }
        for (JsonObject panel : container.getJsonArray("panels").getValuesAs(JsonObject.class)) {
            if (panel.containsKey("targets")) {
                for (JsonObject target : panel.getJsonArray("targets").getValuesAs(JsonObject.class)) {
                    if (target.containsKey("expr")) {
                        queries.add(new OpsQuery(file + ": panel \"" + panel.getString("title", "") + "\", query "
                                + target.getString("refId", "?"), target.getString("expr")));
                    }
                }
            }
            panels(panel, file, queries);
        }
    }

    private static Optional<OpsQuery> variableQuery(JsonObject variable, String file) {
        JsonValue value = variable.get("query");
        String query = value instanceof JsonObject object ? object.getString("query", "")
                : variable.getString("query", "");
        String where = file + ": variable " + variable.getString("name", "?");
        Matcher labelValues = LABEL_VALUES.matcher(query);
        if (labelValues.matches()) {
            return Optional.of(new OpsQuery(where, labelValues.group(1)));
        }
        Matcher queryResult = QUERY_RESULT.matcher(query);
        if (queryResult.matches()) {
            return Optional.of(new OpsQuery(where, queryResult.group(1)));
        }
        if (LABEL_VALUES_ONLY_LABEL.matcher(query).matches()) {
            return Optional.empty();
        }
        throw new IllegalArgumentException(where + ": a variable query of a kind whose metric names cannot be "
                + "found (label_values(selector, label) and query_result(expression) can): " + query);
    }

    /** The {@code expr} of every rule (alerting and recording) of every group of a Prometheus rule file. */
    public static List<OpsQuery> alertRules(String yaml, String file) {
        Map<String, Object> root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        List<OpsQuery> queries = new ArrayList<>();
        for (Object group : (List<?>) root.get("groups")) {
            Map<?, ?> groupMap = (Map<?, ?>) group;
            for (Object rule : (List<?>) groupMap.get("rules")) {
                Map<?, ?> ruleMap = (Map<?, ?>) rule;
                Object name = ruleMap.containsKey("alert") ? ruleMap.get("alert") : ruleMap.get("record");
                queries.add(new OpsQuery(file + ": group " + groupMap.get("name") + ", rule " + name,
                        String.valueOf(ruleMap.get("expr"))));
            }
        }
        return queries;
    }

    private static String resource(String path) {
        try (InputStream in = OpsQueries.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is not on the class path (limiter-it-scenarios' test-jar "
                        + "carries ops/)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
