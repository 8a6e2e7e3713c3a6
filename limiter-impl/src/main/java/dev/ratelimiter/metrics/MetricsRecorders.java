package dev.ratelimiter.metrics;

import dev.ratelimiter.core.ClassPresence;
import dev.ratelimiter.core.RateLimiterMetrics;
import jakarta.enterprise.inject.Instance;

/**
 * Chooses the metrics adapter by what the server offers: MicroProfile Metrics when a {@code MetricRegistry}
 * bean resolves (Payara, Open Liberty), else Micrometer when a {@code MeterRegistry} bean resolves (Quarkus),
 * else none. The registries are looked up only after their classes are found, so no bean has an injection point
 * typed with a class the server may lack.
 */
public final class MetricsRecorders {

    private static final System.Logger LOG = System.getLogger(MetricsRecorders.class.getName());

    private MetricsRecorders() {
    }

    /**
     * The adapter for this server; {@link RateLimiterMetrics#NONE} when it offers neither library.
     *
     * @param beans an injected {@code Instance<Object>}: looking the registry up through an injection point, not
     *              through {@code CDI.current()}, matters on Payara, whose registry producer reads the
     *              injection point's annotations
     */
    public static RateLimiterMetrics detect(Instance<Object> beans) {
        if (ClassPresence.present("org.eclipse.microprofile.metrics.MetricRegistry", MetricsRecorders.class)) {
            Object registry = resolve(beans, "org.eclipse.microprofile.metrics.MetricRegistry");
            if (registry != null) {
                LOG.log(System.Logger.Level.INFO, "Rate limiter metrics: MicroProfile Metrics");
                return new MicroProfileMetricsRecorder((org.eclipse.microprofile.metrics.MetricRegistry) registry);
            }
        }
        if (ClassPresence.present("io.micrometer.core.instrument.MeterRegistry", MetricsRecorders.class)) {
            Object registry = resolve(beans, "io.micrometer.core.instrument.MeterRegistry");
            if (registry != null) {
                LOG.log(System.Logger.Level.INFO, "Rate limiter metrics: Micrometer");
                return new MicrometerMetricsRecorder((io.micrometer.core.instrument.MeterRegistry) registry);
            }
        }
        LOG.log(System.Logger.Level.INFO, "Rate limiter metrics: none (neither MicroProfile Metrics nor Micrometer "
                + "is available)");
        return RateLimiterMetrics.NONE;
    }


    private static Object resolve(Instance<Object> beans, String className) {
        try {
            Class<?> type = Class.forName(className, true, MetricsRecorders.class.getClassLoader());
            Instance<?> instance = beans.select(type);
            return instance.isResolvable() ? instance.get() : null;
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter metrics: " + className + " could not be looked up: "
                    + e);
            return null;
        }
    }
}
