package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.OutageListener;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreParts;

import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;

import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;

/**
 * The decorators every shared store sits behind, in their one order: the bucket's outage policy (with the
 * per-process fallback) around the refusals kept in memory around a circuit breaker around the store's own limiter
 * (docs/architecture.md#the-outage-chain).
 *
 * <p>With buckets that lease quota, their leases sit between the outage policy and the refusals kept in memory
 * ({@link QuotaLeaseLimiter}).
 *
 * @param breaker     the circuit breaker, to close when the application stops (it owns the probe's thread)
 * @param denyCache   the refusals kept in memory, to sweep; empty when {@code ratelimiter.deny-cache.max-age} is 0
 * @param quotaLeases the quota leases, to sweep and give back when the application stops; empty when no bucket
 *                    sets {@code quota-lease-percent}
 * @param limiter     the whole chain, which decides
 */
public record SharedStoreChain(CircuitBreakerLimiter breaker, Optional<DenyCacheLimiter> denyCache,
                               Optional<QuotaLeaseLimiter> quotaLeases, Limiter limiter) {

    /**
     * @param store    the store's limiter, answering {@code UNAVAILABLE} for its failures
     * @param probe    the breaker's background probe of the store
     * @param monitor  told when the breaker opens and closes
     * @param clock    for the breaker's back-off
     * @param fallback the per-process limiter for {@code FALLBACK} buckets
     * @param outages  told of every attempt an outage policy answered
     * @param settings the breaker's thresholds and back-offs ({@code ratelimiter.breaker.*})
     * @param refusals how long refusals are answered from memory ({@code ratelimiter.deny-cache.max-age})
     * @param metrics  told of each refusal answered from memory
     */
    public static SharedStoreChain of(Limiter store, StoreProbe probe, BackendMonitor monitor, InstantSource clock,
                                      MemoryRateLimiter fallback, OutageListener outages, BreakerSettings settings,
                                      DenyCacheSettings refusals, RateLimiterMetrics metrics) {
        return of(store, probe, monitor, clock, fallback, outages, settings, refusals, metrics, Map.of());
    }

    /**
     * As {@link #of(Limiter, StoreProbe, BackendMonitor, InstantSource, MemoryRateLimiter, OutageListener,
     * BreakerSettings, DenyCacheSettings, RateLimiterMetrics)}, with quota leases.
     *
     * @param quotaLeases each leasing bucket's settings, by name ({@code quota-lease-percent}); empty for none
     */
    public static SharedStoreChain of(Limiter store, StoreProbe probe, BackendMonitor monitor, InstantSource clock,
                                      MemoryRateLimiter fallback, OutageListener outages, BreakerSettings settings,
                                      DenyCacheSettings refusals, RateLimiterMetrics metrics,
                                      Map<String, QuotaLeaseSettings> quotaLeases) {
        return around(new CircuitBreakerLimiter(store, probe, monitor, clock, settings), fallback, outages, refusals,
                metrics, quotaLeases);
    }

    /**
     * The chain around a store of the SPI ({@link StoreLimiter}): one breaker probing the whole store, or one per
     * part when the store has {@link RateLimitStore#parts() parts}.
     *
     * @param store    the store
     * @param monitor  told of each failure, and when a breaker opens and closes
     * @param clock    for the breakers' back-off
     * @param fallback the per-process limiter for {@code FALLBACK} buckets
     * @param outages  told of every attempt an outage policy answered
     * @param settings each breaker's thresholds and back-offs ({@code ratelimiter.breaker.*})
     * @param refusals how long refusals are answered from memory ({@code ratelimiter.deny-cache.max-age})
     * @param metrics  told how long each store call took, and of each refusal answered from memory
     */
    public static SharedStoreChain of(RateLimitStore store, BackendMonitor monitor, InstantSource clock,
                                      MemoryRateLimiter fallback, OutageListener outages, BreakerSettings settings,
                                      DenyCacheSettings refusals, RateLimiterMetrics metrics) {
        return of(store, monitor, clock, fallback, outages, settings, refusals, metrics, Map.of());
    }

    /**
     * As {@link #of(RateLimitStore, BackendMonitor, InstantSource, MemoryRateLimiter, OutageListener,
     * BreakerSettings, DenyCacheSettings, RateLimiterMetrics)}, with quota leases.
     *
     * @param quotaLeases each leasing bucket's settings, by name ({@code quota-lease-percent}); empty for none
     */
    public static SharedStoreChain of(RateLimitStore store, BackendMonitor monitor, InstantSource clock,
                                      MemoryRateLimiter fallback, OutageListener outages, BreakerSettings settings,
                                      DenyCacheSettings refusals, RateLimiterMetrics metrics,
                                      Map<String, QuotaLeaseSettings> quotaLeases) {
        StoreLimiter limiter = new StoreLimiter(store, monitor, metrics);
        Optional<StoreParts> parts = store.parts();
        return parts.isPresent()
                ? around(new CircuitBreakerLimiter(limiter, parts.get(), monitor, clock, settings), fallback, outages,
                refusals, metrics, quotaLeases)
                : of(limiter, store::probe, monitor, clock, fallback, outages, settings, refusals, metrics,
                quotaLeases);
    }

    /**
     * The chain with the default breaker ({@link BreakerSettings#DEFAULTS}) and no refusals kept in memory
     * ({@link DenyCacheSettings#OFF}), so every decision reaches the store, for a chain built outside the CDI layer
     * (benchmarks, tests); the parameters are those above.
     */
    public static SharedStoreChain of(Limiter store, StoreProbe probe, BackendMonitor monitor, InstantSource clock,
                                      MemoryRateLimiter fallback, OutageListener outages) {
        return of(store, probe, monitor, clock, fallback, outages, BreakerSettings.DEFAULTS, DenyCacheSettings.OFF,
                RateLimiterMetrics.NONE);
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
     * @param refusals how long refusals are answered from memory ({@code ratelimiter.deny-cache.max-age})
     * @param metrics  told of each refusal answered from memory
     */
    public static SharedStoreChain of(Limiter store, StoreParts parts, BackendMonitor monitor, InstantSource clock,
                                      MemoryRateLimiter fallback, OutageListener outages, BreakerSettings settings,
                                      DenyCacheSettings refusals, RateLimiterMetrics metrics) {
        return around(new CircuitBreakerLimiter(store, parts, monitor, clock, settings), fallback, outages, refusals,
                metrics, Map.of());
    }

    /**
     * The refusals kept in memory sit inside the outage policy, so that only the store's refusals are kept, never
     * the per-process fallback's (docs/architecture.md#the-outage-chain).
     */
    private static SharedStoreChain around(CircuitBreakerLimiter breaker, MemoryRateLimiter fallback,
                                           OutageListener outages, DenyCacheSettings refusals,
                                           RateLimiterMetrics metrics, Map<String, QuotaLeaseSettings> quotaLeases) {
        Optional<DenyCacheLimiter> denyCache = refusals.enabled()
                ? Optional.of(new DenyCacheLimiter(breaker, refusals, metrics))
                : Optional.empty();
        Limiter decided = denyCache.isPresent() ? denyCache.get() : breaker;
        Optional<QuotaLeaseLimiter> leases = quotaLeases.isEmpty() ? Optional.empty()
                : Optional.of(new QuotaLeaseLimiter(decided, quotaLeases, metrics, System::nanoTime));
        return new SharedStoreChain(breaker, denyCache, leases,
                new OutagePolicyLimiter(leases.isPresent() ? leases.get() : decided, Optional.of(fallback), outages));
    }
}
