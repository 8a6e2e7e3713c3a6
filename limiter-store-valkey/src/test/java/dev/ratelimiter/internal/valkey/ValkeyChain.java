package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.contract.StoreChain;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The test chain ({@link StoreChain}) around a Valkey store started from {@code settings} ({@link ValkeyStore}
 * behind {@link StoreLimiter}): in cluster mode with a breaker per master, as
 * {@link dev.ratelimiter.internal.core.chain.SharedStoreChain#of(dev.ratelimiter.spi.RateLimitStore, BackendMonitor,
 * InstantSource, dev.ratelimiter.internal.core.memory.MemoryRateLimiter,
 * dev.ratelimiter.internal.core.monitor.OutageListener, dev.ratelimiter.internal.core.settings.BreakerSettings,
 * DenyCacheSettings, RateLimiterMetrics)} builds it.
 */
final class ValkeyChain extends StoreChain {

    ValkeyChain(ValkeySettings settings) {
        this(settings, DenyCacheSettings.OFF);
    }

    /** With the store's refusals answered from memory as {@code refusals} says. */
    ValkeyChain(ValkeySettings settings, DenyCacheSettings refusals) {
        this(new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE), settings, refusals);
    }

    private ValkeyChain(BackendMonitor monitor, ValkeySettings settings, DenyCacheSettings refusals) {
        this(monitor, ValkeyStore.start(settings), refusals);
    }

    private ValkeyChain(BackendMonitor monitor, ValkeyStore store, DenyCacheSettings refusals) {
        super(monitor, new StoreLimiter(store, monitor, RateLimiterMetrics.NONE), store.parts(), store::probe,
                store::close, refusals);
    }

    /** A standalone chain with the library's default 100 ms deadline. */
    static ValkeyChain standalone(String url) {
        return standalone(url, DenyCacheSettings.OFF);
    }

    /** A standalone chain with the library's default 100 ms deadline, refusals answered from memory as given. */
    static ValkeyChain standalone(String url, DenyCacheSettings refusals) {
        return new ValkeyChain(new ValkeySettings(ValkeySettings.Mode.STANDALONE, url, java.util.List.of(),
                Optional.empty(), Optional.empty(), Optional.empty(), Duration.ofMillis(100), "rl-test:", 16,
                Optional.empty(), Optional.empty()), refusals);
    }
}
