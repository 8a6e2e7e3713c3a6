package dev.ratelimiter.internal.cdi;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * An application's Micrometer registry, as a test's container offers it (with {@code ratelimiter.metrics.system=
 * micrometer}); one registry for every container a test starts, so a test reads it through {@link #REGISTRY} and
 * clears it when done.
 */
public class MicrometerRegistry {

    /** The registry the producer hands out. */
    static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();

    @Produces
    @Singleton
    MeterRegistry meterRegistry() {
        return REGISTRY;
    }
}
