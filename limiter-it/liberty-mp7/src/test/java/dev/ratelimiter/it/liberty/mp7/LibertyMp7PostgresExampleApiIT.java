package dev.ratelimiter.it.liberty.mp7;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.OpenApiScenarios;
import dev.ratelimiter.it.PostgresSchema;
import dev.ratelimiter.it.liberty.LibertyExampleScenarios;
import dev.ratelimiter.it.liberty.LibertyPostgresOverride;
import dev.ratelimiter.it.liberty.ServerLog;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The example API's scenarios on Open Liberty with MicroProfile 7.1 and no MicroProfile Metrics
 * (this module's src/main/liberty/config/server.xml: mpConfig-3.1, mpHealth-4.0, mpTelemetry-2.1 on Jakarta EE 10),
 * with the PostgreSQL backend as limiter-it/liberty's {@code LibertyPostgresExampleApiIT} deploys it: the same example, the same library jar, nothing added for
 * this server. The server's OpenTelemetry SDK is on as a user turns it on for a whole server
 * ({@code otel.sdk.disabled=false} and the OTLP exporter in bootstrap.properties), and {@code
 * ratelimiter.metrics.system} is left at {@code auto}, so the library has to find OpenTelemetry by itself.
 *
 * <p>There is no metrics path to scrape: MicroProfile Telemetry pushes over OTLP. The scenarios read the metrics from
 * an OTLP receiver this test runs ({@link OtlpReceiver}), named as Prometheus stores them ({@link OtlpAsPrometheus}),
 * so the metric scenarios and the check of the dashboard's and the alert rules' series names compare with what such
 * a server really exports. PostgreSQL rather than memory, because the store-call histogram, which the dashboard
 * queries, only exists once a store call has been made (docs/operations.md#opentelemetry).
 *
 * <p>What limiter-it/liberty runs and this module does not, each on the same runtime with the same Jakarta EE 10
 * features and the same {@code mpConfig-3.1} and {@code mpHealth-4.0} as here (MicroProfile 6.1 and 7.1 take the
 * same versions of both), so MicroProfile 7 changes nothing they test: the example in memory with a configuration
 * profile ({@code LibertyListedApplicationIT}: the same scenarios, and profiles are MicroProfile Config's), live
 * limits ({@code LibertyLiveLimitsIT}: the reload reads MicroProfile Config), the global key resolver, the fallback's
 * carry, a listed application, and the starts that must fail ({@code LibertyStartFailureIT}: bad properties, an
 * unresolved secret, startup validation), which end before any metrics are recorded. The one thing of MicroProfile 7 they would meet, the metrics, is what
 * this class and {@link LibertyMp7RedeployIT} test; and MicroProfile OpenAPI 4.1, whose model differs from 3.1's,
 * in the served document ({@link #openApiDocument()}).
 */
class LibertyMp7PostgresExampleApiIT extends LibertyExampleScenarios {

    /** An export comes every half second (otel.metric.export.interval in the pom); a loaded machine may be slower. */
    private static final Duration EXPORT_WAIT = Duration.ofSeconds(20);

    // Made by the deployment method, which Arquillian calls before anything of the class runs.
    private static PostgresSchema schema;
    private static OtlpReceiver otlp;
    private static ServerLog log;

    @Deployment(testable = false)
    static WebArchive deployment() {
        otlp = OtlpReceiver.start(Integer.parseInt(System.getProperty("otlp.port")));
        log = ServerLog.mark();
        LibertyPostgresOverride.applyIfInContainer();
        schema = PostgresSchema.create("rl_liberty_mp7");
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + "ratelimiter.backend=postgres\nratelimiter.postgres.datasource=jdbc/ratelimiter\n"
                + "ratelimiter.postgres.timeout=PT1S\n"
                + "ratelimiter.postgres.table=" + schema.name() + ".rate_limit_counters\n");
    }

    @AfterAll
    static void stop() {
        if (schema != null) {
            schema.close();
        }
        if (otlp != null) {
            otlp.close();
        }
    }

    @Override
    protected String backend() {
        return "postgres";
    }

    /**
     * The scenarios that meet nothing MicroProfile 7 changes (limits, keys, plans, windows, logins, the global limit's
     * count, CORS): each runs in limiter-it/liberty's {@code LibertyPostgresExampleApiIT}, on the same runtime with the
     * same Jakarta EE 10 features, the same transactional dataSource and the same store. This server runs the
     * portability set (class-level and self-call bindings, the feature beside scanning, refusal handlers,
     * {@code CompletionStage} methods, the rolled-back import through the managed executor), readiness, and every
     * metrics scenario, the ones MicroProfile 7 does change.
     */
    private static final List<String> ON_THE_MICROPROFILE_6_SERVER = List.of("anonymousGlobalLimit",
            "programmaticRefusalAsTheInterceptors", "burstAndSustainedWindows", "burstWindowEndsBeforeTheHour",
            "exportCost", "loginLimitedPerAccount",
            "loginLimitedPerAddressAndAccount", "reportsLimitedPerTenant", "reportsPlansPerTenant", "monthlyQuotaPerPlan",
            "plansChosenByConfiguredResolver", "explicitLimitsOfACustomer", "failedPlanGetsTheBucketsOwnLimits",
            "searchLimitedBySlidingWindow", "reportsWithoutTenant", "resolverFallsBackToAddress", "loginNormalized",
            "loginAddressCountsFailuresOnly", "successfulLoginResets", "authenticatedKeyedByPrincipal", "malformedBody",
            "preflightNotCounted", "shadowBucketNeverRefuses", "allowAndDenyLists", "exportsTwoAtOnce");

    @Override
    protected Map<String, String> scenariosNotRun() {
        return ON_THE_MICROPROFILE_6_SERVER.stream().collect(Collectors.toMap(name -> name, name -> "runs in "
                + "LibertyPostgresExampleApiIT on the same runtime, features, dataSource and store; MicroProfile 7 "
                + "changes nothing it meets"));
    }

    /** The first OTLP export collected after the call, as Prometheus would store it. */
    @Override
    protected String scrape() {
        return OtlpAsPrometheus.exposition(otlp.exportAfterNow(EXPORT_WAIT));
    }

    @Test
    @DisplayName("with no MicroProfile Metrics, auto records in OpenTelemetry, whose SDK is on (no warning); the "
            + "server has no /metrics")
    void autoChoosesOpenTelemetry() {
        assertThat(log.text()).contains("Rate limiter metrics: OpenTelemetry").doesNotContain("has no metrics SDK");
        assertThat(client().get("metrics").statusCode()).isEqualTo(404);
    }

    @Test
    @DisplayName("each decision is on the request's server span, exported over OTLP: bucket, plan, outcome, remaining, "
            + "fallback, never the key; a refusal of the deny list adds the event ratelimit.refused "
            + "(docs/operations.md#decisions-on-the-trace)")
    void decisionsOnTheTrace() {
        Instant before = Instant.now();
        ExampleApi allowed = client();
        assertThat(allowed.get("api/projects").statusCode()).isEqualTo(200);
        ExampleApi denied = ExampleApi.withAddress(baseUri(), "203.0.113.99");
        assertThat(denied.get("api/projects").statusCode()).isEqualTo(429);

        Span allowedSpan = await().atMost(EXPORT_WAIT).until(() -> spanWith("allowed", before),
                Optional::isPresent).get();
        assertThat(attributes(allowedSpan)).containsEntry("ratelimit.bucket", "api-anonymous")
                .containsEntry("ratelimit.plan", "none").containsEntry("ratelimit.remaining", "119")
                .containsEntry("ratelimit.fallback", "false");
        assertThat(allowedSpan.getEventsList()).isEmpty();

        Span deniedSpan = await().atMost(EXPORT_WAIT).until(() -> spanWith("deny_listed", before),
                Optional::isPresent).get();
        assertThat(attributes(deniedSpan)).containsEntry("ratelimit.bucket", "api-anonymous")
                .containsEntry("ratelimit.remaining", "0");
        assertThat(deniedSpan.getEventsList()).singleElement().satisfies(event -> {
            assertThat(event.getName()).isEqualTo("ratelimit.refused");
            assertThat(event.getAttributesList().stream().map(KeyValue::getKey))
                    .contains("ratelimit.bucket", "ratelimit.outcome", "ratelimit.retry_after");
        });
        for (Span span : List.of(allowedSpan, deniedSpan)) {
            assertThat(attributes(span).entrySet()).filteredOn(entry -> entry.getKey().startsWith("ratelimit."))
                    .as("no key among the limiter's attributes")
                    .noneMatch(entry -> entry.getValue().contains(allowed.clientAddress())
                            || entry.getValue().contains("203.0.113.99"));
        }
    }

    /**
     * The span of a request whose decision had this outcome, started after {@code since}: this test's, as the
     * scenarios run one at a time.
     */
    private Optional<Span> spanWith(String outcome, Instant since) {
        long sinceNanos = since.getEpochSecond() * 1_000_000_000L + since.getNano();
        return otlp.spans().stream().filter(span -> span.getStartTimeUnixNano() >= sinceNanos)
                .filter(span -> outcome.equals(attributes(span).get("ratelimit.outcome"))).findFirst();
    }

    /** A span's attributes, each value as text. */
    private static Map<String, String> attributes(Span span) {
        Map<String, String> attributes = new LinkedHashMap<>();
        for (KeyValue attribute : span.getAttributesList()) {
            AnyValue value = attribute.getValue();
            attributes.put(attribute.getKey(), value.hasStringValue() ? value.getStringValue()
                    : value.hasIntValue() ? String.valueOf(value.getIntValue())
                    : value.hasBoolValue() ? String.valueOf(value.getBoolValue()) : value.toString());
        }
        return attributes;
    }

    @Test
    @DisplayName("every series is exported with the description the other adapters give it (the library's Series), "
            + "the counts without a unit, the store-call histogram in seconds")
    void descriptionsAndUnits() throws ReflectiveOperationException {
        client().get("api/projects");
        ExportMetricsServiceRequest export = otlp.exportAfterNow(EXPORT_WAIT);
        Map<String, Metric> exported = export.getResourceMetricsList().stream()
                .flatMap(resource -> resource.getScopeMetricsList().stream())
                .filter(scope -> scope.getScope().getName().equals("dev.ratelimiter"))
                .flatMap(scope -> scope.getMetricsList().stream())
                .collect(Collectors.toMap(Metric::getName, metric -> metric, (a, b) -> a));

        Map<String, String> expected = seriesDescriptions();
        assertThat(exported.keySet().stream().filter(name -> !QUOTA_LEASE_SERIES.contains(name)).toList())
                .containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<String, String> series : expected.entrySet()) {
            Metric metric = exported.get(series.getKey());
            assertThat(metric.getDescription()).as(series.getKey()).isEqualTo(series.getValue());
            assertThat(metric.getUnit()).as(series.getKey())
                    .isEqualTo(series.getKey().equals("rate_limiter.backend") ? "s" : "");
        }
        assertThat(OtlpAsPrometheus.name(exported.get("rate_limiter.decisions")))
                .isEqualTo("rate_limiter_decisions_total");
        assertThat(OtlpAsPrometheus.name(exported.get("rate_limiter.backend")))
                .isEqualTo("rate_limiter_backend_seconds");
    }

    /**
     * The series registered only for a bucket with {@code quota-lease-percent} (docs/guide.md#quota-leases-for-hot-keys),
     * which the example has none of, and those of waiting calls and upstream holds, which OpenTelemetry exports only
     * once a call waited (docs/guide.md#waiting-instead-of-refusing), before or after this check as the scenarios'
     * order falls: left out of the comparison on both sides; their descriptions are checked in limiter-impl's
     * {@code OpenTelemetryMetricsRecorderTest}.
     */
    private static final Set<String> QUOTA_LEASE_SERIES = Set.of("rate_limiter.quota_leases",
            "rate_limiter.quota_returned", "rate_limiter.local_decisions", "rate_limiter.waits",
            "rate_limiter.waited_milliseconds", "rate_limiter.upstream_holds");

    /**
     * The OpenTelemetry name and description of every series the example registers, from the one enum every adapter
     * names and describes its series from ({@code dev.ratelimiter.internal.metrics.Series}, package-private, so read
     * reflectively): all but {@link #QUOTA_LEASE_SERIES}.
     */
    private static Map<String, String> seriesDescriptions() throws ReflectiveOperationException {
        Class<?> series = Class.forName("dev.ratelimiter.internal.metrics.Series");
        Method metric = series.getDeclaredMethod("metric");
        Method description = series.getDeclaredMethod("description");
        metric.setAccessible(true);
        description.setAccessible(true);
        Map<String, String> descriptions = new LinkedHashMap<>();
        for (Object constant : series.getEnumConstants()) {
            String name = "rate_limiter." + metric.invoke(constant);
            if (!QUOTA_LEASE_SERIES.contains(name)) {
                descriptions.put(name, (String) description.invoke(constant));
            }
        }
        return descriptions;
    }

    @Test
    @DisplayName("/openapi (MicroProfile OpenAPI 4.1) shows the example's limits: login's and reports', the 429, 400 "
            + "and the refusal's schema")
    void openApiDocument() throws Exception {
        OpenApiScenarios.assertExampleDocumented(baseUri().resolve("/openapi"), baseUri());
    }
}
