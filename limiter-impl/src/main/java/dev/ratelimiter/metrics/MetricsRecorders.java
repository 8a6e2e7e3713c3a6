package dev.ratelimiter.metrics;

import dev.ratelimiter.core.RateLimiterMetrics;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

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

    /** The adapter for this server; {@link RateLimiterMetrics#NONE} when it offers neither library. */
    public static RateLimiterMetrics detect() {
        if (present("org.eclipse.microprofile.metrics.MetricRegistry")) {
            Object registry = resolve("org.eclipse.microprofile.metrics.MetricRegistry");
            if (registry != null) {
                LOG.log(System.Logger.Level.INFO, "Rate limiter metrics: MicroProfile Metrics");
                return new MicroProfileMetricsRecorder((org.eclipse.microprofile.metrics.MetricRegistry) registry);
            }
        }
        if (present("io.micrometer.core.instrument.MeterRegistry")) {
            Object registry = resolve("io.micrometer.core.instrument.MeterRegistry");
            if (registry != null) {
                LOG.log(System.Logger.Level.INFO, "Rate limiter metrics: Micrometer");
                return new MicrometerMetricsRecorder((io.micrometer.core.instrument.MeterRegistry) registry);
            }
        }
        LOG.log(System.Logger.Level.INFO, "Rate limiter metrics: none (neither MicroProfile Metrics nor Micrometer "
                + "is available)");
        return RateLimiterMetrics.NONE;
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, MetricsRecorders.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static Object resolve(String className) {
        try {
            Class<?> type = Class.forName(className, true, MetricsRecorders.class.getClassLoader());
            Instance<?> instance = CDI.current().select(type);
            return instance.isResolvable() ? instance.get() : null;
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            return null;
        }
    }
}
