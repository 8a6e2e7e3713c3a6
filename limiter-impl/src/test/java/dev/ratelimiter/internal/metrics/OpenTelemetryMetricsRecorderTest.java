package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.Verdict.Outcome;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/** The OpenTelemetry adapter on the SDK, its metrics read as an exporter would, with the in-memory reader. */
class OpenTelemetryMetricsRecorderTest {

    /** Orders attribute maps by their sorted text, so sets of them compare whatever their order of creation. */
    private static final Comparator<Map<String, String>> BY_TEXT =
            Comparator.comparing(map -> new TreeMap<>(map).toString());

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private final OpenTelemetryMetricsRecorder recorder = OpenTelemetryMetricsRecorder.of(
            OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build());
    private final Bucket login = Bucket.of("login", 5, Duration.ofMinutes(15), OutagePolicy.FAIL_OPEN);
    private final AtomicBoolean degraded = new AtomicBoolean();

    @AfterEach
    void close() {
        meterProvider.close();
    }

    @Test
    @DisplayName("every count and the flag are exported at zero right after registration: a decision series per "
            + "outcome, tagged by bucket or backend only; the call histogram comes with the first call")
    void registeredAtZero() {
        recorder.register(List.of(login), Map.of(), "valkey", degraded::get);
        Map<String, MetricData> metrics = collect();

        // OpenTelemetry has no empty histogram: recording a 0 would count a call that never happened.
        assertThat(metrics).containsOnlyKeys("rate_limiter.decisions", "rate_limiter.fallbacks",
                "rate_limiter.fail_open", "rate_limiter.near_limit", "rate_limiter.cached_denials", "rate_limiter.refunds",
                "rate_limiter.settlements", "rate_limiter.settled_cost",
                "rate_limiter.plan_misses", "rate_limiter.plan_cache_lookups", "rate_limiter.backend_errors",
                "rate_limiter.degraded");
        for (String plan : List.of("none", "explicit")) {
            for (Outcome outcome : Outcome.values()) {
                assertThat(count(metrics, "rate_limiter.decisions", Attributes.builder().put("bucket", "login")
                        .put("plan", plan).put("outcome", outcome.name().toLowerCase(Locale.ROOT)).build()))
                        .as(plan + " " + outcome.name()).isZero();
            }
        }
        assertThat(count(metrics, "rate_limiter.plan_misses",
                Attributes.builder().put("bucket", "login").put("reason", "undeclared").build())).isZero();
        assertThat(count(metrics, "rate_limiter.plan_cache_lookups",
                Attributes.of(AttributeKey.stringKey("result"), "hit"))).isZero();
        Attributes bucket = Attributes.of(AttributeKey.stringKey("bucket"), "login");
        assertThat(count(metrics, "rate_limiter.fallbacks", bucket)).isZero();
        assertThat(count(metrics, "rate_limiter.fail_open", bucket)).isZero();
        assertThat(count(metrics, "rate_limiter.cached_denials", bucket)).isZero();
        Attributes backend = Attributes.of(AttributeKey.stringKey("backend"), "valkey");
        assertThat(count(metrics, "rate_limiter.backend_errors", backend)).isZero();
        assertThat(metrics.get("rate_limiter.degraded").getLongGaugeData().getPoints())
                .singleElement().satisfies(point -> {
                    assertThat(point.getAttributes()).isEqualTo(backend);
                    assertThat(point.getValue()).isZero();
                });
    }

    @Test
    @DisplayName("closed when the application stops, the gauges no longer call back into it (an SDK of the whole "
            + "server outlives the application); the counts stay exported")
    void closeUnregistersTheGauges() {
        java.util.concurrent.atomic.AtomicInteger callbacks = new java.util.concurrent.atomic.AtomicInteger();
        recorder.register(List.of(login), Map.of(), "valkey", () -> callbacks.incrementAndGet() < 0);
        recorder.rejectedSettings(callbacks::incrementAndGet);
        recorder.fallback(login);
        assertThat(collect()).containsKeys("rate_limiter.degraded", "rate_limiter.rejected_settings");
        assertThat(callbacks).hasValue(2);

        recorder.close();
        Map<String, MetricData> metrics = collect();

        assertThat(callbacks).as("no callback after close").hasValue(2);
        assertThat(metrics).doesNotContainKeys("rate_limiter.degraded", "rate_limiter.rejected_settings");
        assertThat(count(metrics, "rate_limiter.fallbacks", Attributes.of(AttributeKey.stringKey("bucket"), "login")))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("events move their series; the degraded gauge follows the backend's state; a store call is "
            + "recorded in seconds")
    void eventsCounted() {
        recorder.register(List.of(login), Map.of(), "valkey", degraded::get);
        recorder.fallback(login);
        recorder.failOpen(login);
        recorder.failOpen(login);
        recorder.decision(login, Outcome.ALLOWED);
        recorder.decision(login, Outcome.DENIED);
        recorder.decision(login.withPlan("pro", List.of(new Limit(50, Duration.ofMinutes(15))), 0),
                Outcome.DENIED);
        recorder.cachedDenial(login);
        recorder.planMiss(login, dev.ratelimiter.internal.core.monitor.RateLimiterMetrics.PlanMiss.UNFIT);
        recorder.planCache(false);
        recorder.backendError("valkey");
        recorder.backendCall("valkey", 1_500_000);
        degraded.set(true);
        Map<String, MetricData> metrics = collect();

        Attributes bucket = Attributes.of(AttributeKey.stringKey("bucket"), "login");
        Attributes backend = Attributes.of(AttributeKey.stringKey("backend"), "valkey");
        assertThat(count(metrics, "rate_limiter.fallbacks", bucket)).isEqualTo(1);
        assertThat(count(metrics, "rate_limiter.fail_open", bucket)).isEqualTo(2);
        assertThat(count(metrics, "rate_limiter.cached_denials", bucket)).isEqualTo(1);
        assertThat(count(metrics, "rate_limiter.decisions", Attributes.builder().put("bucket", "login")
                .put("plan", "none").put("outcome", "allowed").build())).isEqualTo(1);
        assertThat(count(metrics, "rate_limiter.decisions", Attributes.builder().put("bucket", "login")
                .put("plan", "none").put("outcome", "denied").build())).isEqualTo(1);
        assertThat(count(metrics, "rate_limiter.decisions", Attributes.builder().put("bucket", "login")
                .put("plan", "pro").put("outcome", "denied").build())).isEqualTo(1);
        assertThat(count(metrics, "rate_limiter.plan_misses",
                Attributes.builder().put("bucket", "login").put("reason", "unfit").build())).isEqualTo(1);
        assertThat(count(metrics, "rate_limiter.plan_cache_lookups",
                Attributes.of(AttributeKey.stringKey("result"), "miss"))).isEqualTo(1);
        assertThat(count(metrics, "rate_limiter.backend_errors", backend)).isEqualTo(1);
        assertThat(metrics.get("rate_limiter.degraded").getLongGaugeData().getPoints())
                .singleElement().satisfies(point -> assertThat(point.getValue()).isEqualTo(1));
        HistogramPointData call = metrics.get("rate_limiter.backend").getHistogramData().getPoints().iterator().next();
        assertThat(call.getAttributes()).isEqualTo(backend);
        assertThat(call.getCount()).isEqualTo(1);
        assertThat(call.getSum()).isCloseTo(0.0015, offset(1e-12));
        // 1.5 ms falls in the bucket (1 ms, 2.5 ms], not in the SDK's default first bucket (0, 5]
        assertThat(call.getBoundaries()).isEqualTo(OpenTelemetryMetricsRecorder.CALL_SECONDS_BOUNDS);
        assertThat(call.getCounts().get(OpenTelemetryMetricsRecorder.CALL_SECONDS_BOUNDS.indexOf(0.0025)))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("an unregistered bucket or backend records nothing, rather than a series nobody registered")
    void unregisteredIgnored() {
        recorder.register(List.of(login), Map.of(), "memory", degraded::get);
        Bucket other = Bucket.of("other", 1, Duration.ofMinutes(1));
        recorder.decision(other, Outcome.ALLOWED);
        recorder.fallback(other);
        recorder.backendError("postgres");
        recorder.backendCall("postgres", 1_000);

        Map<String, MetricData> metrics = collect();
        assertThat(metrics.values()).allSatisfy(metric -> assertThat(points(metric)).allSatisfy(attributes ->
                assertThat(attributes.asMap().values()).doesNotContain("other", "postgres")));
    }

    @Test
    @DisplayName("every instrument carries its series' description; counts and the flag have no unit, the call "
            + "timer is in seconds; counts are monotonic sums, the flag a gauge, the timer a histogram")
    void descriptionsUnitsAndTypes() {
        Bucket exports = Bucket.concurrency("exports", 2, Duration.ofSeconds(30), OutagePolicy.FALLBACK);
        recorder.register(List.of(login, exports), Map.of(), "valkey", degraded::get);
        recorder.rejectedSettings(() -> 2);
        recorder.backendCall("valkey", 1_000);
        recorder.permitsInFlight(exports, 1);
        recorder.registerQuotaLeases(List.of(login));
        recorder.quotaLeaseTaken(login, 10);
        recorder.quotaLeaseReturned(login, 3);
        recorder.localDecision(login);
        recorder.registerWaits(List.of(login));
        recorder.waited(login, RateLimiterMetrics.WaitOutcome.ADMITTED, 120);
        recorder.upstreamHold(login);
        Map<String, MetricData> metrics = collect();
        assertThat(metrics.get("rate_limiter.permits_in_flight").getLongGaugeData().getPoints())
                .singleElement().satisfies(point -> assertThat(point.getValue()).isEqualTo(1));
        assertThat(metrics.get("rate_limiter.rejected_settings").getLongGaugeData().getPoints())
                .singleElement().satisfies(point -> assertThat(point.getValue()).isEqualTo(2));

        for (Series series : Series.values()) {
            MetricData metric = metrics.get("rate_limiter." + series.metric());
            assertThat(metric.getDescription()).as(series.name()).isEqualTo(series.description());
            assertThat(metric.getUnit()).as(series.name()).isEqualTo(series == Series.BACKEND ? "s" : "");
            assertThat(metric.getInstrumentationScopeInfo().getName()).isEqualTo("dev.ratelimiter");
            MetricDataType expected = series == Series.BACKEND ? MetricDataType.HISTOGRAM
                    : series == Series.DEGRADED || series == Series.REJECTED_SETTINGS
                    || series == Series.PERMITS_IN_FLIGHT ? MetricDataType.LONG_GAUGE
                    : MetricDataType.LONG_SUM;
            assertThat(metric.getType()).as(series.name()).isEqualTo(expected);
            if (expected == MetricDataType.LONG_SUM) {
                assertThat(metric.getLongSumData().isMonotonic()).as(series.name()).isTrue();
            }
        }
    }

    @Test
    @DisplayName("the same names and the same attribute sets as the Micrometer adapter")
    void sameSeriesAsMicrometer() {
        Map<String, Set<String>> plans = Map.of("login", Set.of("free", "pro"));
        recorder.register(List.of(login), plans, "postgres", degraded::get);
        recorder.backendCall("postgres", 1_000);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new MicrometerMetricsRecorder(registry).register(List.of(login), plans, "postgres", degraded::get);

        Map<String, Set<Map<String, String>>> micrometer = new TreeMap<>();
        for (Meter meter : registry.getMeters()) {
            micrometer.computeIfAbsent(meter.getId().getName(), name -> new TreeSet<>(BY_TEXT))
                    .add(meter.getId().getTags().stream().collect(Collectors.toMap(Tag::getKey, Tag::getValue)));
        }
        Map<String, Set<Map<String, String>>> openTelemetry = new TreeMap<>();
        collect().forEach((name, metric) -> openTelemetry.put(name, points(metric).stream()
                .map(attributes -> attributes.asMap().entrySet().stream().collect(Collectors.toMap(
                        entry -> entry.getKey().getKey(), entry -> String.valueOf(entry.getValue()))))
                .collect(Collectors.toCollection(() -> new TreeSet<>(BY_TEXT)))));

        assertThat(openTelemetry).isEqualTo(micrometer);
    }

    private Map<String, MetricData> collect() {
        return reader.collectAllMetrics().stream()
                .collect(Collectors.toMap(MetricData::getName, metric -> metric));
    }

    private static long count(Map<String, MetricData> metrics, String name, Attributes attributes) {
        MetricData metric = metrics.get(name);
        assertThat(metric).as(name).isNotNull();
        return metric.getLongSumData().getPoints().stream()
                .filter(point -> point.getAttributes().equals(attributes))
                .map(LongPointData::getValue)
                .reduce((a, b) -> {
                    throw new AssertionError("two points with " + attributes);
                })
                .orElseThrow(() -> new AssertionError("no point of " + name + " with " + attributes));
    }

    private static Collection<Attributes> points(MetricData metric) {
        return metric.getData().getPoints().stream().map(PointData::getAttributes).toList();
    }
}
