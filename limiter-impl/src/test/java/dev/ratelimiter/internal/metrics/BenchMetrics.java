package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The Micrometer recorder Quarkus applications get, on a {@link SimpleMeterRegistry}, so the benchmark's whole
 * decision path pays for its metrics as an application does. In the recorder's package because the recorder is
 * package-private (the CDI layer chooses it by what the server offers), and in limiter-impl's test-jar so that no
 * other jar adds classes to that package.
 */
public final class BenchMetrics {

    private BenchMetrics() {
    }

    /** A new recorder on a registry of its own; call {@link RateLimiterMetrics#register} before use. */
    public static RateLimiterMetrics micrometer() {
        return new MicrometerMetricsRecorder(new SimpleMeterRegistry());
    }
}
