package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.internal.core.monitor.DecisionTracer;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.ClassPresence;
import dev.ratelimiter.internal.core.settings.MetricsSystem;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.enterprise.inject.Instance;

import java.util.List;
import java.util.Optional;

/**
 * Chooses the one metrics adapter that records ({@code ratelimiter.metrics.system}, docs/operations.md#metrics):
 * MicroProfile Metrics when a {@code MetricRegistry} bean resolves (Payara, Open Liberty's {@code mpMetrics}),
 * Micrometer when a {@code MeterRegistry} bean resolves (Quarkus), OpenTelemetry when an {@code OpenTelemetry} bean
 * resolves (MicroProfile Telemetry 2, {@code quarkus-opentelemetry}). {@code auto} takes the first in
 * {@link MetricsSystem#AUTO_ORDER}; a named system must be there. Never two, so nothing is counted twice.
 *
 * <p>A bean is looked up only after its class is found, so no bean has an injection point typed with a class the
 * server may lack (docs/architecture.md#layers-inside-limiter-impl).
 */
public final class MetricsRecorders {

    private static final System.Logger LOG = System.getLogger(MetricsRecorders.class.getName());

    private static final String MP_REGISTRY = "org.eclipse.microprofile.metrics.MetricRegistry";
    private static final String MICROMETER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";
    private static final String OPEN_TELEMETRY = "io.opentelemetry.api.OpenTelemetry";
    private static final String SPAN = "io.opentelemetry.api.trace.Span";

    private MetricsRecorders() {
    }

    /**
     * The adapter of the chosen system.
     *
     * @param system {@code ratelimiter.metrics.system}
     * @param beans  an injected {@code Instance<Object>}: looking the registry up through an injection point, not
     *               through {@code CDI.current()}, matters on Payara, whose registry producer reads the injection
     *               point's annotations
     * @return the adapter; {@link RateLimiterMetrics#NONE} for {@code none}, and for {@code auto} when the server
     *         offers none of the three
     * @throws ConfigurationException naming {@code ratelimiter.metrics.system} when a named system's bean does not
     *                                resolve
     */
    public static RateLimiterMetrics choose(MetricsSystem system, Instance<Object> beans) {
        if (system == MetricsSystem.NONE) {
            LOG.log(System.Logger.Level.INFO, "Rate limiter metrics: none (ratelimiter.metrics.system=none)");
            return RateLimiterMetrics.NONE;
        }
        List<MetricsSystem> candidates = system == MetricsSystem.AUTO ? MetricsSystem.AUTO_ORDER : List.of(system);
        for (MetricsSystem candidate : candidates) {
            Optional<RateLimiterMetrics> adapter = adapter(candidate, beans);
            if (adapter.isPresent()) {
                LOG.log(System.Logger.Level.INFO, "Rate limiter metrics: " + library(candidate));
                return adapter.get();
            }
        }
        if (system != MetricsSystem.AUTO) {
            throw new ConfigurationException(List.of("ratelimiter.metrics.system: '" + system.configName()
                    + "' is chosen, but this server offers no " + library(system) + " (" + needs(system)
                    + "); use auto to take whichever it offers, or none"));
        }
        LOG.log(System.Logger.Level.INFO, "Rate limiter metrics: none (the server offers neither MicroProfile "
                + "Metrics, nor Micrometer, nor OpenTelemetry)");
        return RateLimiterMetrics.NONE;
    }

    /**
     * The trace port: {@link SpanDecisionTracer} when the OpenTelemetry API is visible to the application, else
     * {@link DecisionTracer#NONE}. Independent of {@code ratelimiter.metrics.system}: a server may trace with
     * OpenTelemetry and count with MicroProfile Metrics.
     */
    public static DecisionTracer tracer() {
        if (!ClassPresence.present(SPAN, MetricsRecorders.class)) {
            return DecisionTracer.NONE;
        }
        LOG.log(System.Logger.Level.INFO, "Rate limiter tracing: each decision on the request's OpenTelemetry span");
        return new SpanDecisionTracer();
    }

    /** The adapter on the system's bean, if its class is there and the bean resolves. */
    private static Optional<RateLimiterMetrics> adapter(MetricsSystem system, Instance<Object> beans) {
        switch (system) {
            case MICROPROFILE:
                return lookUp(beans, MP_REGISTRY).map(registry ->
                        new MicroProfileMetricsRecorder((org.eclipse.microprofile.metrics.MetricRegistry) registry));
            case MICROMETER:
                return lookUp(beans, MICROMETER_REGISTRY).map(registry ->
                        new MicrometerMetricsRecorder((io.micrometer.core.instrument.MeterRegistry) registry));
            case OPENTELEMETRY:
                return lookUp(beans, OPEN_TELEMETRY).map(openTelemetry ->
                        openTelemetry((io.opentelemetry.api.OpenTelemetry) openTelemetry));
            default:
                return Optional.empty();
        }
    }

    /**
     * The OpenTelemetry adapter, with a warning when the bean's meters are the API's no-op ones: MicroProfile
     * Telemetry's bean resolves with its SDK off (its default), as Quarkus' may with its metrics off, so the library
     * would record and nothing be exported.
     */
    private static RateLimiterMetrics openTelemetry(io.opentelemetry.api.OpenTelemetry openTelemetry) {
        if (openTelemetry.getMeterProvider() == io.opentelemetry.api.metrics.MeterProvider.noop()) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter metrics: the server's OpenTelemetry has no metrics "
                    + "SDK, so nothing is exported: on Open Liberty set otel.sdk.disabled=false, on Quarkus "
                    + "quarkus.otel.metrics.enabled=true (docs/operations.md#opentelemetry)");
        }
        return OpenTelemetryMetricsRecorder.of(openTelemetry);
    }

    private static String library(MetricsSystem system) {
        switch (system) {
            case MICROPROFILE:
                return "MicroProfile Metrics";
            case MICROMETER:
                return "Micrometer";
            case OPENTELEMETRY:
                return "OpenTelemetry";
            default:
                return system.configName();
        }
    }

    /** What the server needs for that system, for the error message. */
    private static String needs(MetricsSystem system) {
        switch (system) {
            case MICROPROFILE:
                return "a " + MP_REGISTRY + " bean: Payara, or Open Liberty's mpMetrics feature";
            case MICROMETER:
                return "a " + MICROMETER_REGISTRY + " bean: Quarkus' quarkus-micrometer";
            case OPENTELEMETRY:
                return "an " + OPEN_TELEMETRY + " bean visible to the application: Open Liberty's mpTelemetry-2.0 "
                        + "with the third-party API visible, or quarkus-opentelemetry";
            default:
                return "nothing";
        }
    }

    private static Optional<Object> lookUp(Instance<Object> beans, String className) {
        if (!ClassPresence.present(className, MetricsRecorders.class)) {
            return Optional.empty();
        }
        try {
            Class<?> type = Class.forName(className, true, MetricsRecorders.class.getClassLoader());
            Instance<?> instance = beans.select(type);
            return instance.isResolvable() ? Optional.of(instance.get()) : Optional.empty();
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter metrics: " + className + " could not be looked up: "
                    + e);
            return Optional.empty();
        }
    }
}
