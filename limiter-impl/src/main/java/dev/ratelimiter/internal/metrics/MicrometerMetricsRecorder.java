package dev.ratelimiter.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Reports to Micrometer, as Quarkus offers it. Meter names use Micrometer's dots ({@code rate_limiter.fallbacks});
 * its Prometheus registry exports them as the same series as MicroProfile Metrics, without {@code mp_scope}.
 * A count or flag (MicroProfile Metrics' unit {@code none}) has no base unit here: Micrometer's Prometheus naming
 * appends a base unit to the series' name ({@code rate_limiter_fail_open_<unit>_total}). The timer's unit is the
 * registry's base time unit, seconds in Prometheus.
 */
final class MicrometerMetricsRecorder extends CounterTableRecorder<Counter> {

    private final MeterRegistry registry;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    MicrometerMetricsRecorder(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    Counter counter(Series series, String... tags) {
        return Counter.builder("rate_limiter." + series.metric()).description(series.description())
                .baseUnit(baseUnit(series)).tags(tags).register(registry);
    }

    @Override
    void increment(Counter counter) {
        counter.increment();
    }

    @Override
    void registerBackend(String backend, BooleanSupplier degraded) {
        String name = backend;
        // strongReference: Micrometer holds a gauge's object weakly, and nothing else holds this lambda, so it
        // would be collected and the gauge would read NaN.
        Gauge.builder("rate_limiter." + Series.DEGRADED.metric(), degraded, d -> d.getAsBoolean() ? 1 : 0)
                .description(Series.DEGRADED.description()).baseUnit(baseUnit(Series.DEGRADED)).tag("backend", name)
                .strongReference(true).register(registry);
        timers.put(backend, Timer.builder("rate_limiter." + Series.BACKEND.metric())
                .description(Series.BACKEND.description()).tag("backend", name).register(registry));
    }

    @Override
    public void rejectedSettings(java.util.function.IntSupplier count) {
        Gauge.builder("rate_limiter." + Series.REJECTED_SETTINGS.metric(), count,
                        java.util.function.IntSupplier::getAsInt)
                .description(Series.REJECTED_SETTINGS.description()).strongReference(true).register(registry);
    }

    private static String baseUnit(Series series) {
        return Series.NONE.equals(series.unit()) ? null : series.unit();
    }

    @Override
    public void backendCall(String backend, long nanos) {
        Timer timer = timers.get(backend);
        if (timer != null) {
            timer.record(nanos, TimeUnit.NANOSECONDS);
        }
    }
}
