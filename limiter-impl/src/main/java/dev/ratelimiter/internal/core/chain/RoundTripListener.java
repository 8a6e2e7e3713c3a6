package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.spi.StoreItem;

/**
 * Told of each round trip to a store, once, however many decisions it carried (docs/stores.md#batching): the
 * circuit breaker counts round trips, so a failed round trip of twenty decisions is one failure, not twenty.
 */
@FunctionalInterface
public interface RoundTripListener {

    /** Told nothing. */
    RoundTripListener NONE = (first, failed) -> { };

    /**
     * @param first  the first item the round trip carried: every item of a round trip lies in the same part of the
     *               store ({@link dev.ratelimiter.spi.RateLimitStore#parts()})
     * @param failed whether it failed (its decisions then answer {@code UNAVAILABLE})
     */
    void completed(StoreItem first, boolean failed);
}
