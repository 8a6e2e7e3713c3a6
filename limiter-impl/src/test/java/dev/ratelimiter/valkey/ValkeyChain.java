package dev.ratelimiter.valkey;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.contract.CountingLimiter;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.BackendState;
import dev.ratelimiter.core.CircuitBreakerLimiter;
import dev.ratelimiter.core.MemoryRateLimiter;
import dev.ratelimiter.core.OutageStatistics;
import dev.ratelimiter.core.RateLimiterMetrics;
import dev.ratelimiter.core.SharedStoreChain;
import dev.ratelimiter.core.ValkeySettings;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The chain the CDI layer builds ({@link SharedStoreChain}) for the Valkey backend, built by hand: outage policies around a circuit breaker
 * around the store's limiter (counted), with a per-process fallback.
 */
final class ValkeyChain implements AutoCloseable {

    final BackendMonitor monitor;
    final OutageStatistics outages = new OutageStatistics();
    final CountingLimiter store;
    final CircuitBreakerLimiter breaker;
    final RateLimiter limiter;
    private final ValkeyBackend backend;

    ValkeyChain(ValkeySettings settings) {
        InstantSource clock = InstantSource.system();
        monitor = new BackendMonitor(Backend.VALKEY, clock, RateLimiterMetrics.NONE);
        backend = ValkeyBackend.start(settings, monitor, RateLimiterMetrics.NONE);
        store = new CountingLimiter(backend.limiter());
        SharedStoreChain chain = SharedStoreChain.of(store, backend.probe(), monitor, clock,
                new MemoryRateLimiter(clock, 10_000), outages);
        breaker = chain.breaker();
        limiter = chain.limiter();
    }

    /** A standalone chain with the library's default 100 ms deadline. */
    static ValkeyChain standalone(String url) {
        return new ValkeyChain(new ValkeySettings(ValkeySettings.Mode.STANDALONE, url, java.util.List.of(),
                Optional.empty(), Optional.empty(), Optional.empty(), Duration.ofMillis(100), "rl-test:", 16,
                Optional.empty(), Optional.empty()));
    }

    boolean degraded() {
        return monitor.status().state() == BackendState.DEGRADED;
    }

    @Override
    public void close() {
        breaker.close();
        backend.close();
    }
}
