package dev.ratelimiter.internal.core;

/**
 * One cheap round trip to a shared store that needs what a decision needs (Valkey: the decision's script on a
 * probe key, so a server that answers reads but refuses writes fails it; PostgreSQL: {@code SELECT 1}), with the
 * same deadlines as a decision. Used by the circuit breaker's background probe, never on a user request.
 */
@FunctionalInterface
public interface StoreProbe {

    /**
     * @throws Exception any failure: the store is still unavailable
     */
    void probe() throws Exception;
}
