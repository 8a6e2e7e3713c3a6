package dev.ratelimiter.it.ops;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The shipped dashboard and alert rules as the server modules read them: every panel that
 * docs/operations.md#the-grafana-dashboard lists, a templated data source, queries PromQL accepts (promtool, the real
 * parser), and the series each one uses.
 */
class OpsQueriesTest {

    @Test
    @DisplayName("the dashboard's panels: decisions, refusals from memory, outage decisions, store latency, breaker, "
            + "degraded, decisions by plan, plan misses, plan cache hit rate")
    void dashboardPanels() {
        JsonObject dashboard = shippedDashboard();
        assertThat(dashboard.getJsonArray("panels").getValuesAs(JsonObject.class))
                .extracting(panel -> panel.getString("title"))
                .contains("Decisions by outcome and bucket", "Refusals served from memory",
                        "Outage decisions: fallback, fail-open, fail-closed", "Store call time (mean)",
                        "Store calls and errors", "Circuit breaker", "Degraded instances", "Decisions by plan",
                        "Plan misses", "Plan cache hit rate");
    }

    @Test
    @DisplayName("every panel and query reads the data source chosen in the dashboard's Prometheus variable")
    void templatedDataSource() {
        JsonObject dashboard = shippedDashboard();
        JsonObject variable = dashboard.getJsonObject("templating").getJsonArray("list").getValuesAs(JsonObject.class)
                .stream().filter(v -> "datasource".equals(v.getString("name"))).findFirst().orElseThrow();
        assertThat(variable.getString("type")).isEqualTo("datasource");
        assertThat(variable.getString("query")).isEqualTo("prometheus");
        for (JsonObject panel : dashboard.getJsonArray("panels").getValuesAs(JsonObject.class)) {
            assertThat(panel.getJsonObject("datasource").getString("uid")).as(panel.getString("title"))
                    .isEqualTo("${datasource}");
            assertThat(panel.getJsonArray("targets")).as(panel.getString("title")).isNotEmpty();
            for (JsonObject target : panel.getJsonArray("targets").getValuesAs(JsonObject.class)) {
                assertThat(target.getJsonObject("datasource").getString("uid")).isEqualTo("${datasource}");
            }
        }
    }

    @Test
    @DisplayName("the dashboard and the alert rules use every series of the Metrics table (docs/operations.md#metrics)")
    void seriesUsed() {
        Set<String> used = new TreeSet<>();
        OpsQueries.shipped().forEach(query -> used.addAll(query.metricNames()));
        assertThat(used).containsExactlyInAnyOrder("rate_limiter_decisions_total", "rate_limiter_fallbacks_total",
                "rate_limiter_fail_open_total", "rate_limiter_near_limit_total", "rate_limiter_cached_denials_total",
                "rate_limiter_refunds_total",
                "rate_limiter_backend_errors_total", "rate_limiter_degraded", "rate_limiter_backend_seconds_sum",
                "rate_limiter_backend_seconds_count", "rate_limiter_plan_misses_total",
                "rate_limiter_plan_cache_lookups_total");
    }

    @Test
    @DisplayName("the alert rules' expressions are read from the YAML, one per rule")
    void alertRules() {
        List<OpsQuery> rules = OpsQueries.shipped().stream()
                .filter(query -> query.where().startsWith("rate-limiter-alerts.yml")).toList();
        assertThat(rules).extracting(OpsQuery::where).containsExactly(
                "rate-limiter-alerts.yml: group rate-limiter, rule RateLimiterDegraded",
                "rate-limiter-alerts.yml: group rate-limiter, rule RateLimiterFailingOpen",
                "rate-limiter-alerts.yml: group rate-limiter, rule RateLimiterShadowWouldRefuse");
        assertThat(rules.get(0).metricNames()).containsExactly("rate_limiter_degraded");
        assertThat(rules.get(1).metricNames()).containsExactly("rate_limiter_fail_open_total");
        assertThat(rules.get(2).metricNames()).containsExactly("rate_limiter_decisions_total");
    }

    @Test
    @DisplayName("promtool parses every dashboard query (Grafana's interval variables given a value)")
    void dashboardQueriesParse(@TempDir Path directory) throws IOException, InterruptedException {
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        List<OpsQuery> queries = OpsQueries.dashboard(read(OpsQueries.DASHBOARD), "dashboard");
        assertThat(queries).hasSizeGreaterThan(10);
        for (int i = 0; i < queries.size(); i++) {
            String expression = queries.get(i).expression().replaceAll("\\$\\{?__(rate_interval|interval|range)}?",
                    "5m");
            rules.append("      - record: dashboard:query_").append(i).append("\n        expr: '")
                    .append(expression.replace("'", "''")).append("'\n");
        }
        Path file = Files.writeString(directory.resolve("dashboard-queries.yml"), rules);
        Process promtool;
        try {
            promtool = new ProcessBuilder("promtool", "check", "rules", file.toString()).redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new AssertionError("promtool is needed to check the dashboard's queries (Debian package "
                    + "prometheus; CONTRIBUTING.md#building-and-testing)", e);
        }
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(promtool.exitValue()).as(output + "\n" + rules).isZero();
    }

    @Test
    @DisplayName("panels inside a row are read; label_values(label) names nothing; other variable queries are refused")
    void dashboardShapes() {
        String dashboard = """
                {"panels": [{"type": "row", "title": "r", "panels": [
                   {"title": "inner", "targets": [{"refId": "A", "expr": "rate(a_total[5m])"}]}]}],
                 "templating": {"list": [
                   {"name": "v1", "type": "query", "query": "label_values(job)"},
                   {"name": "v2", "type": "query", "query": {"query": "label_values(b{job=\\"x\\"}, instance)"}},
                   {"name": "v3", "type": "query", "query": "query_result(max(c))"},
                   {"name": "v4", "type": "custom", "query": "a,b"}]}}
                """;
        assertThat(OpsQueries.dashboard(dashboard, "d.json")).containsExactly(
                new OpsQuery("d.json: panel \"inner\", query A", "rate(a_total[5m])"),
                new OpsQuery("d.json: variable v2", "b{job=\"x\"}"),
                new OpsQuery("d.json: variable v3", "max(c)"));
        assertThatThrownBy(() -> OpsQueries.dashboard("""
                {"templating": {"list": [{"name": "v", "type": "query", "query": "metrics(rate_.*)"}]}}
                """, "d.json")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("variable v");
    }

    private static JsonObject shippedDashboard() {
        try (JsonReader reader = Json.createReader(new StringReader(read(OpsQueries.DASHBOARD)))) {
            return reader.readObject();
        }
    }

    private static String read(String resource) {
        try (InputStream in = OpsQueriesTest.class.getClassLoader().getResourceAsStream(resource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
