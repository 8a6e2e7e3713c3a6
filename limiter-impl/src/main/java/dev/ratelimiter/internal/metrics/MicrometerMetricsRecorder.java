package dev.ratelimiter.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Reports to Micrometer, as Quarkus offers it. Meter names use Micrometer's dots ({@code rate_limiter.fallbacks});
 * its Prometheus registry exports them as the same series as MicroProfile Metrics, without {@code mp_scope}.
 * A count or flag (MicroProfile Metrics' unit {@code none}) has no base unit here: Micrometer's Prometheus naming
 * appends a base unit to the series' name ({@code rate_limiter_fail_open_<unit>_total}). The timer's unit is the
 * registry's base time unit, seconds in Prometheus.
 *
 * <p>Every meter is registered through its builder (with its description), and again through the registry's
 * name-and-tags methods when the registry then does not list it: WildFly gives each deployment a registry
 * ({@code ApplicationRegistry} of its Micrometer subsystem) that forwards only those methods to the server's
 * registries, so a meter registered by a builder stays in the deployment and is never exported. Those meters are
 * exported without their description. Such a registry outlives the deployment, so what is registered there is
 * removed when the application stops ({@link #close()}), as a registry of the application's own goes with it: else
 * the next deployment would get the same meters, its counts starting where the last one's ended and its gauges
 * reading the stopped application (NaN once their callbacks are collected).
 */
final class MicrometerMetricsRecorder extends CounterTableRecorder<Counter> {

    private final MeterRegistry registry;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    /**
     * What the gauges registered by name read: the registry holds it weakly, and nothing else holds these
     * lambdas.
     */
    private final List<Object> gaugeSources = new CopyOnWriteArrayList<>();
    /** The meters registered by name, in a registry that outlives the application. */
    private final List<Meter> byName = new CopyOnWriteArrayList<>();

    MicrometerMetricsRecorder(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    Counter counter(Series series, String... tags) {
        String name = "rate_limiter." + series.metric();
        Counter counter = Counter.builder(name).description(series.description())
                .baseUnit(baseUnit(series)).tags(tags).register(registry);
        return listed(counter) ? counter : keep(registry.counter(name, byName(tags)));
    }

    @Override
    void increment(Counter counter) {
        counter.increment();
    }

    @Override
    void add(Counter counter, long amount) {
        counter.increment(amount);
    }

    @Override
    void registerBackend(String backend, BooleanSupplier degraded) {
        gauge(Series.DEGRADED, degraded, d -> d.getAsBoolean() ? 1 : 0, "backend", backend);
        String timerName = "rate_limiter." + Series.BACKEND.metric();
        Timer timer = Timer.builder(timerName).description(Series.BACKEND.description()).tag("backend", backend)
                .register(registry);
        timers.put(backend, listed(timer) ? timer : keep(registry.timer(timerName, byName("backend", backend))));
    }

    @Override
    void gauge(Series series, java.util.function.LongSupplier value, String... tags) {
        gauge(series, value, java.util.function.LongSupplier::getAsLong, tags);
    }

    @Override
    public void rejectedSettings(IntSupplier count) {
        gauge(Series.REJECTED_SETTINGS, count, IntSupplier::getAsInt);
    }

    /**
     * A gauge of {@code series} reading {@code source}, by its builder, else by name where the registry does not list
     * the builder's. Micrometer holds a gauge's object weakly, and nothing else holds these suppliers: the builder's
     * gauge holds it strongly, and {@link #gaugeSources} holds the one registered by name, else it would be
     * collected and the gauge would read NaN.
     */
    private <T> void gauge(Series series, T source, ToDoubleFunction<T> value, String... tags) {
        String name = "rate_limiter." + series.metric();
        if (!listed(Gauge.builder(name, source, value).description(series.description()).baseUnit(baseUnit(series))
                .tags(tags).strongReference(true).register(registry))) {
            gaugeSources.add(source);
            registry.gauge(name, byName(tags), source, value);
            keep(registry.find(name).tags(tags).gauge());
        }
    }

    private <M extends Meter> M keep(M registeredByName) {
        if (registeredByName != null) {
            byName.add(registeredByName);
        }
        return registeredByName;
    }

    /** Removes the meters registered by name: their registry outlives the application. */
    @Override
    public void close() {
        byName.forEach(registry::remove);
        byName.clear();
        gaugeSources.clear();
    }

    /**
     * Tags typed as the {@code Iterable} the name-and-tags methods take: Micrometer's overloads taking {@code Tags}
     * or {@code String...} register through a builder, and WildFly's registry forwards the {@code Iterable} ones
     * only.
     */
    private static Iterable<Tag> byName(String... tags) {
        return Tags.of(tags);
    }

    /** Whether the registry lists the meter its builder registered (WildFly's per-deployment registry does not). */
    private boolean listed(Meter meter) {
        return registry.find(meter.getId().getName()).tags(meter.getId().getTags()).meters().contains(meter);
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
