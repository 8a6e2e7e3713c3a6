package dev.ratelimiter.internal.metrics;

import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Reports to MicroProfile Metrics 5 (application scope), as Payara and Open Liberty offer it. Exported by the
 * server with {@code mp_scope="application"}: {@code rate_limiter_decisions_total{bucket,plan,outcome}},
 * {@code rate_limiter_fallbacks_total{bucket}}, {@code rate_limiter_fail_open_total{bucket}},
 * {@code rate_limiter_near_limit_total{bucket}}, {@code rate_limiter_cached_denials_total{bucket}},
 * {@code rate_limiter_refunds_total{bucket,outcome}}, {@code rate_limiter_settlements_total{bucket,outcome}},
 * {@code rate_limiter_settled_cost_total{bucket}},
 * {@code rate_limiter_plan_misses_total{bucket,reason}}, {@code rate_limiter_plan_cache_lookups_total{result}},
 * {@code rate_limiter_backend_errors_total{backend}}, {@code rate_limiter_degraded{backend}} and the timer
 * {@code rate_limiter_backend_seconds{backend}}. Every series of a name has the same tag names, as MicroProfile
 * Metrics requires: a decision's {@code plan} is on every decision series, shadow outcomes included.
 */
final class MicroProfileMetricsRecorder extends CounterTableRecorder<Counter> {

    private final MetricRegistry registry;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    MicroProfileMetricsRecorder(MetricRegistry registry) {
        this.registry = registry;
    }

    @Override
    Counter counter(Series series, String... tags) {
        return registry.counter(metadata(series), tags(tags));
    }

    @Override
    void increment(Counter counter) {
        counter.inc();
    }

    @Override
    void add(Counter counter, long amount) {
        counter.inc(amount);
    }

    @Override
    void registerBackend(String backend, BooleanSupplier degraded) {
        Tag tag = new Tag("backend", backend);
        registry.gauge(metadata(Series.DEGRADED), degraded, d -> d.getAsBoolean() ? 1 : 0, tag);
        timers.put(backend, registry.timer(metadata(Series.BACKEND), tag));
    }

    @Override
    void gauge(Series series, java.util.function.LongSupplier value, String... tags) {
        registry.gauge(metadata(series), value, java.util.function.LongSupplier::getAsLong, tags(tags));
    }

    @Override
    public void rejectedSettings(java.util.function.IntSupplier count) {
        registry.gauge(metadata(Series.REJECTED_SETTINGS), count, java.util.function.IntSupplier::getAsInt);
    }

    @Override
    public void backendCall(String backend, long nanos) {
        Timer timer = timers.get(backend);
        if (timer != null) {
            timer.update(Duration.ofNanos(nanos));
        }
    }

    /** The same for every tag set of a series, as MicroProfile Metrics requires of one name. */
    private static Metadata metadata(Series series) {
        return Metadata.builder().withName("rate_limiter_" + series.metric()).withDescription(series.description())
                .withUnit(series.unit()).build();
    }

    private static Tag[] tags(String... namesAndValues) {
        Tag[] tags = new Tag[namesAndValues.length / 2];
        for (int i = 0; i < tags.length; i++) {
            tags[i] = new Tag(namesAndValues[2 * i], namesAndValues[2 * i + 1]);
        }
        return tags;
    }
}
