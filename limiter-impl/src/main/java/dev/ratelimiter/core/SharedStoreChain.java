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
     * @param settings the breaker's thresholds and back-offs ({@code ratelimiter.breaker.*})
     */
    public static SharedStoreChain of(RateLimiter store, StoreProbe probe, BackendMonitor monitor, InstantSource clock,
                                      RateLimiter fallback, OutageListener outages, BreakerSettings settings) {
        return around(new CircuitBreakerLimiter(store, probe, monitor, clock, settings), fallback, outages);
    }

    /**
     * The chain with the default breaker ({@link BreakerSettings#DEFAULTS}), for a chain built outside the CDI
     * layer (benchmarks, tests); the parameters are those above.
     */
    public static SharedStoreChain of(RateLimiter store, StoreProbe probe, BackendMonitor monitor, InstantSource clock,
                                      RateLimiter fallback, OutageListener outages) {
        return of(store, probe, monitor, clock, fallback, outages, BreakerSettings.DEFAULTS);
    }

    /**
     * The chain around a store whose parts fail on their own: a breaker per part.
     *
     * @param store    the store's limiter, answering {@code UNAVAILABLE} for its failures
     * @param parts    which part holds a key, and each part's probe
     * @param monitor  told when a part's breaker opens and closes
     * @param clock    for the breakers' back-off
     * @param fallback the per-process limiter for {@code FALLBACK} buckets
     * @param outages  told of every attempt an outage policy answered
     * @param settings each breaker's thresholds and back-offs ({@code ratelimiter.breaker.*})
     */
    public static SharedStoreChain of(RateLimiter store, StoreParts parts, BackendMonitor monitor, InstantSource clock,
                                      RateLimiter fallback, OutageListener outages, BreakerSettings settings) {
        return around(new CircuitBreakerLimiter(store, parts, monitor, clock, settings), fallback, outages);
    }

    private static SharedStoreChain around(CircuitBreakerLimiter breaker, RateLimiter fallback,
                                           OutageListener outages) {
        return new SharedStoreChain(breaker, new OutagePolicyLimiter(breaker, Optional.of(fallback), outages));
    }
}
