package dev.ratelimiter.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * How a store takes the decisions that wait for it (docs/stores.md#batching): while {@code roundTrips} round trips
 * are in flight to one part of the store (the whole store when it has no parts), the calls that arrive wait, and the
 * next round trip carries every one of them, up to {@code maxCalls}, through {@link RateLimitStore#consumeEach}. A
 * call that arrives while fewer are in flight goes at once, alone, through {@link RateLimitStore#consume}, so a quiet
 * store gains no latency.
 *
 * @param maxCalls   the most calls one round trip carries, 2 to 1024
 * @param roundTrips round trips in flight at once to one part, 1 to 1024
 * @param maxWait    the longest a call waits to be carried, positive: the store's own deadline for a free
 *                   connection, so that waiting here is never longer than waiting for its pool was; a call still
 *                   waiting then fails as a timeout that counted nothing
 */
public record StoreBatching(int maxCalls, int roundTrips, Duration maxWait) {

    /**
     * @throws IllegalArgumentException if a number is out of its range or {@code maxWait} is not positive
     * @throws NullPointerException     if {@code maxWait} is {@code null}
     */
    public StoreBatching {
        if (maxCalls < 2 || maxCalls > 1_024) {
            throw new IllegalArgumentException("maxCalls " + maxCalls + " is not 2 to 1024");
        }
        if (roundTrips < 1 || roundTrips > 1_024) {
            throw new IllegalArgumentException("roundTrips " + roundTrips + " is not 1 to 1024");
        }
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative() || maxWait.isZero()) {
            throw new IllegalArgumentException("maxWait " + maxWait + " is not positive");
        }
    }
}
