package dev.ratelimiter.internal.cdi.beans;

import dev.ratelimiter.internal.core.time.ElapsedTimeClock;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;

import java.time.InstantSource;

/**
 * Produces the limiter's time source: the startup instant plus the time elapsed since
 * ({@link ElapsedTimeClock}), so setting the machine's clock moves no window. An application or test replaces it
 * with an {@code @Alternative @Priority(...)} producer of {@link InstantSource}; the in-memory store reads that one
 * forward-only ({@link dev.ratelimiter.internal.core.time.ForwardOnlyClock}).
 */
@ApplicationScoped
public class ClockProducer {

    private final InstantSource clock = ElapsedTimeClock.startingNow();

    @Produces
    @Dependent
    InstantSource clock() {
        return clock;
    }
}
