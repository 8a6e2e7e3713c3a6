package dev.ratelimiter.internal.metrics;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongGauge;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * Reports to the OpenTelemetry metrics API, as MicroProfile Telemetry 2 (Open Liberty's {@code mpTelemetry-2.0})
 * and {@code quarkus-opentelemetry} offer it through their {@code OpenTelemetry} bean; the meter's instrumentation
 * scope is {@value #SCOPE}. Instruments have Micrometer's names ({@code rate_limiter.decisions}) and the same
 * attributes ({@code bucket}, {@code plan}, {@code outcome}, {@code reason}, {@code result}, {@code backend}), so an
 * OpenTelemetry-to-Prometheus translation yields the same series as the other adapters
 * ({@code rate_limiter_decisions_total}). Counts are monotonic long sums and the degraded flag a long gauge, all without a unit, since that translation would append one to the
 * series' name; the call timer is a histogram in seconds ({@code s}), exported as
 * {@code rate_limiter_backend_seconds}.
 *
 * <p>Compiled against the OpenTelemetry API that Open Liberty's MicroProfile Telemetry 2.0 ships (1.39), the oldest
 * of the supported servers', so it uses nothing a later API lacks or an earlier one of those servers misses.
 */
final class OpenTelemetryMetricsRecorder extends CounterTableRecorder<OpenTelemetryMetricsRecorder.Bound> {

    /** The instrumentation scope's name: the library's. */
    static final String SCOPE = "dev.ratelimiter";

    /**
     * The call timer's bucket bounds, in seconds: store calls take well under a millisecond to the
     * {@code ratelimiter.valkey.timeout} / {@code postgres.timeout} deadlines (100 ms by default), where the SDK's
     * default bounds (0 to 10000, meant for milliseconds) would put every call in the first bucket.
     */
    static final List<Double> CALL_SECONDS_BOUNDS = List.of(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
            0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0);

    /** A counter with one attribute set: the OpenTelemetry API has no bound instruments. */
    record Bound(LongCounter counter, Attributes attributes) {
    }

    /**
     * The call timer's unit (UCUM): {@link Series#BACKEND}'s nanoseconds are recorded as seconds, the unit
     * OpenTelemetry's conventions give durations and the one the other adapters export.
     */
    static final String SECONDS = "s";

    private static final double NANOS_PER_SECOND = 1e9;

    private final Meter meter;
    private final Map<Series, LongCounter> counters = new ConcurrentHashMap<>();
    private final Map<String, DoubleHistogram> histograms = new ConcurrentHashMap<>();
    private final Map<String, Attributes> backendAttributes = new ConcurrentHashMap<>();
    // Held so the gauges' callbacks live as long as this recorder, and closed with it: an SDK turned on for a whole
    // Open Liberty server outlives the application, and would otherwise call into it after it stopped.
    private final List<ObservableLongGauge> gauges = new CopyOnWriteArrayList<>();

    OpenTelemetryMetricsRecorder(Meter meter) {
        this.meter = meter;
    }

    /** The recorder on the library's meter of that {@code OpenTelemetry} instance. */
    static OpenTelemetryMetricsRecorder of(OpenTelemetry openTelemetry) {
        return new OpenTelemetryMetricsRecorder(openTelemetry.getMeter(SCOPE));
    }

    @Override
    Bound counter(Series series, String... tags) {
        LongCounter counter = counters.computeIfAbsent(series, s -> meter.counterBuilder(name(s))
                .setDescription(s.description()).build());
        Attributes attributes = attributes(tags);
        // Adding 0 makes the SDK report the series from now on, so it reads 0 before the first event, as in the
        // other libraries (docs/operations.md#metrics).
        counter.add(0, attributes);
        return new Bound(counter, attributes);
    }

    @Override
    void increment(Bound counter) {
        counter.counter().add(1, counter.attributes());
    }

    @Override
    void add(Bound counter, long amount) {
        counter.counter().add(amount, counter.attributes());
    }

    @Override
    public void rejectedSettings(java.util.function.IntSupplier count) {
        gauges.add(meter.gaugeBuilder(name(Series.REJECTED_SETTINGS)).ofLongs()
                .setDescription(Series.REJECTED_SETTINGS.description())
                .buildWithCallback(measurement -> measurement.record(count.getAsInt())));
    }

    @Override
    void gauge(Series series, java.util.function.LongSupplier value, String... tags) {
        Attributes attributes = attributes(tags);
        gauges.add(meter.gaugeBuilder(name(series)).ofLongs().setDescription(series.description())
                .buildWithCallback(measurement -> measurement.record(value.getAsLong(), attributes)));
    }

    @Override
    void registerBackend(String backend, BooleanSupplier degraded) {
        Attributes attributes = Attributes.of(AttributeKey.stringKey("backend"), backend);
        backendAttributes.put(backend, attributes);
        gauges.add(meter.gaugeBuilder(name(Series.DEGRADED)).ofLongs()
                .setDescription(Series.DEGRADED.description())
                .buildWithCallback(measurement -> measurement.record(degraded.getAsBoolean() ? 1 : 0, attributes)));
        histograms.put(backend, meter.histogramBuilder(name(Series.BACKEND))
                .setDescription(Series.BACKEND.description()).setUnit(SECONDS)
                .setExplicitBucketBoundariesAdvice(CALL_SECONDS_BOUNDS).build());
    }

    @Override
    public void backendCall(String backend, long nanos) {
        DoubleHistogram histogram = histograms.get(backend);
        if (histogram != null) {
            histogram.record(nanos / NANOS_PER_SECOND, backendAttributes.get(backend));
        }
    }

    /**
     * Unregisters the gauges' callbacks. The counters and the histogram stay with the SDK (the OpenTelemetry API
     * cannot remove an instrument); a later deployment's recorder gets the same instruments back by name.
     */
    @Override
    public void close() {
        for (ObservableLongGauge gauge : gauges) {
            gauge.close();
        }
        gauges.clear();
    }

    /** Micrometer's name of the series, which the OpenTelemetry naming rules also allow. */
    private static String name(Series series) {
        return "rate_limiter." + series.metric();
    }

    private static Attributes attributes(String... namesAndValues) {
        AttributesBuilder builder = Attributes.builder();
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
            builder.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return builder.build();
    }
}
