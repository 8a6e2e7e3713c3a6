package dev.ratelimiter.internal.core.chain;

/**
 * One cheap round trip to a shared store that needs what a decision needs, with the same deadlines as a decision:
 * a store's {@link dev.ratelimiter.spi.RateLimitStore#probe()} (Valkey: the decision's script on a probe key;
 * PostgreSQL: an {@code UPDATE} of the counter table that matches no row; so a server that answers reads but
 * refuses writes fails it), or a part's. A function rather than the store itself because the circuit breaker wraps
 * the store's limiter, not the store. Used by the breaker's background probe, never on a user request.
 */
@FunctionalInterface
public interface StoreProbe {

    /**
     * @throws Exception any failure: the store is still unavailable
     */
    void probe() throws Exception;
}
