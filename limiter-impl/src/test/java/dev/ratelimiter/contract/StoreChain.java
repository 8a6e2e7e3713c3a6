package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.chain.CircuitBreakerLimiter;
import dev.ratelimiter.internal.core.chain.SharedStoreChain;
import dev.ratelimiter.internal.core.chain.StoreProbe;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.monitor.OutageStatistics;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import dev.ratelimiter.spi.StoreParts;

import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chain the CDI layer builds ({@link SharedStoreChain}) around a shared store, built by hand for a test:
 * outage policies around a circuit breaker around the store's limiter (counted), with a per-process in-memory
 * fallback of 10 000 keys, on the system clock. Each backend's test chain extends it with how it starts the store.
 */
public class StoreChain implements AutoCloseable {

    /** The store's state and last error. */
    public final BackendMonitor monitor;
    /** Fallbacks and fail-opens per bucket. */
    public final OutageStatistics outages = new OutageStatistics();
    /** Refusals answered from memory, per bucket. */
    public final CachedDenials cachedDenials = new CachedDenials();
    /** The store's limiter, counting its calls. */
    public final CountingLimiter store;
    /** The breaker in front of the store. */
    public final CircuitBreakerLimiter breaker;
    /** The whole chain, as applications reach it. */
    public final Limiter limiter;
    private final Runnable closeStore;

    /**
     * @param monitor    the monitor the store was started with
     * @param store      the store's own limiter
     * @param probe      the breaker's probe of the store
     * @param closeStore closes the store's clients or pool, after the breaker
     */
    protected StoreChain(BackendMonitor monitor, Limiter store, StoreProbe probe, Runnable closeStore) {
        this(monitor, store, Optional.empty(), probe, closeStore);
    }

    /**
     * Without refusals kept in memory, so every decision reaches the store.
     *
     * @param monitor    the monitor the store was started with
     * @param store      the store's own limiter
     * @param parts      the store's parts, for a breaker per part; empty for one breaker with {@code probe}
     * @param probe      the breaker's probe of the whole store
     * @param closeStore closes the store's clients or pool, after the breaker
     */
    protected StoreChain(BackendMonitor monitor, Limiter store, Optional<StoreParts> parts, StoreProbe probe,
                         Runnable closeStore) {
        this(monitor, store, parts, probe, closeStore, DenyCacheSettings.OFF);
    }

    /**
     * @param monitor    the monitor the store was started with
     * @param store      the store's own limiter
     * @param parts      the store's parts, for a breaker per part; empty for one breaker with {@code probe}
     * @param probe      the breaker's probe of the whole store
     * @param closeStore closes the store's clients or pool, after the breaker
     * @param refusals   how long the store's refusals are answered from memory
     */
    protected StoreChain(BackendMonitor monitor, Limiter store, Optional<StoreParts> parts, StoreProbe probe,
                         Runnable closeStore, DenyCacheSettings refusals) {
        this(monitor, store, parts, probe, closeStore, refusals, BreakerSettings.DEFAULTS);
    }

    /**
     * As {@link #StoreChain(BackendMonitor, Limiter, Optional, StoreProbe, Runnable, DenyCacheSettings)}, with the
     * breaker's own settings: a test of recovery that need not wait the default back-off of up to 30 s.
     *
     * @param breaker the breaker's thresholds and back-offs
     */
    protected StoreChain(BackendMonitor monitor, Limiter store, Optional<StoreParts> parts, StoreProbe probe,
                         Runnable closeStore, DenyCacheSettings refusals, BreakerSettings breaker) {
        InstantSource clock = InstantSource.system();
        this.monitor = monitor;
        this.store = new CountingLimiter(store);
        MemoryRateLimiter fallback = new MemoryRateLimiter(clock, 10_000);
        SharedStoreChain chain = parts.isPresent()
                ? SharedStoreChain.of(this.store, parts.get(), monitor, clock, fallback, outages, breaker,
                        refusals, cachedDenials)
                : SharedStoreChain.of(this.store, probe, monitor, clock, fallback, outages, breaker, refusals,
                        cachedDenials);
        this.breaker = chain.breaker();
        this.limiter = chain.limiter();
        this.closeStore = closeStore;
    }

    /** Whether the breaker has taken the store out (readiness would say {@code degraded}). */
    public boolean degraded() {
        return monitor.status().state() == BackendState.DEGRADED;
    }

    /** Counts the refusals answered from memory, per bucket name. */
    public static final class CachedDenials implements RateLimiterMetrics {
        private final Map<String, AtomicLong> byBucket = new ConcurrentHashMap<>();

        @Override
        public void cachedDenial(Bucket bucket) {
            byBucket.computeIfAbsent(bucket.name(), name -> new AtomicLong()).incrementAndGet();
        }

        /** Refusals of that bucket answered from memory so far. */
        public long of(Bucket bucket) {
            AtomicLong count = byBucket.get(bucket.name());
            return count == null ? 0 : count.get();
        }
    }

    @Override
    public void close() {
        breaker.close();
        closeStore.run();
    }
}
