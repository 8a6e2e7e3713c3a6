package dev.ratelimiter.internal.core.settings;

import java.time.Duration;

/**
 * How the circuit breaker in front of a shared store behaves.
 *
 * @param failureThreshold  consecutive failed decisions that open the breaker, at least 1
 * @param initialBackoff    delay before the first probe after opening, and between probes that succeed
 * @param maxBackoff        the back-off doubles after each failed probe up to this
 * @param successThreshold  probes that must succeed in a row to close the breaker, at least 1
 */
public record BreakerSettings(int failureThreshold, Duration initialBackoff, Duration maxBackoff,
                              int successThreshold) {

    /** The defaults: 3 failures open it; probes back off from 1 s doubling to 30 s; 3 successes close it. */
    public static final BreakerSettings DEFAULTS =
            new BreakerSettings(3, Duration.ofSeconds(1), Duration.ofSeconds(30), 3);

    public BreakerSettings {
        if (failureThreshold < 1 || successThreshold < 1) {
            throw new IllegalArgumentException("thresholds must be at least 1");
        }
        if (initialBackoff.isNegative() || initialBackoff.isZero() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("back-off must be positive and maxBackoff >= initialBackoff");
        }
    }
}
