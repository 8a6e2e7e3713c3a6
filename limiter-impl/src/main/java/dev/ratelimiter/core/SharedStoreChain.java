package dev.ratelimiter.core;

import dev.ratelimiter.RateLimiter;

import java.time.InstantSource;
import java.util.Optional;

/**
 * The decorators every shared store sits behind, in their one order: the bucket's outage policy (with the
 * per-process fallback) around a circuit breaker around the store's own limiter (docs/architecture.md, "The
 * outage chain").
 *
 * @param breaker the circuit breaker, to close when the application stops (it owns the probe's thread)
 * @param limiter the whole chain, which decides
 */
public record SharedStoreChain(CircuitBreakerLimiter breaker, RateLimiter limiter) {

    /**
     * @param store    the store's limiter, answering {@code UNAVAILABLE} for its failures
     * @param probe    the breaker's background probe of the store
     * @param monitor  told when the breaker opens and closes
     * @param clock    for the breaker's back-off
     * @param fallback the per-process limiter for {@code FALLBACK} buckets
     * @param outages  told of every attempt an outage policy answered
     */
    public static SharedStoreChain of(RateLimiter store, StoreProbe probe, BackendMonitor monitor, InstantSource clock,
                                      RateLimiter fallback, OutageListener outages) {
        CircuitBreakerLimiter breaker = new CircuitBreakerLimiter(store, probe, monitor, clock,
                BreakerSettings.DEFAULTS);
        return new SharedStoreChain(breaker, new OutagePolicyLimiter(breaker, Optional.of(fallback), outages));
    }
}
