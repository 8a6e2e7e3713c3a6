package dev.ratelimiter.core;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A {@link RateLimitStore} as the innermost limiter of the outage chain (docs/architecture.md, "The store SPI"):
 * turns the store's numbers into verdicts ({@link WindowVerdicts}, the one place for that rule), times each call
 * for the metrics, and turns each failure into an {@code UNAVAILABLE} verdict reported to the
 * {@link BackendMonitor}. Never throws out of {@link #consume} or {@link #reset}.
 */
public final class StoreLimiter implements RateLimiter {

    private final RateLimitStore store;
    private final BackendMonitor monitor;
    private final RateLimiterMetrics metrics;
    private final String backend;

    /**
     * @param store   the store, owned by the caller
     * @param monitor told of every failure
     * @param metrics told how long each call took
     */
    public StoreLimiter(RateLimitStore store, BackendMonitor monitor, RateLimiterMetrics metrics) {
        this.store = Objects.requireNonNull(store, "store");
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.backend = monitor.status().backend();
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        long start = System.nanoTime();
        try {
            long[] answer = store.consume(List.of(new StoreItem(bucket, key, cost)));
            return WindowVerdicts.fromCounts(bucket, cost, answer, 0);
        } catch (StoreException e) {
            monitor.failure(e.getCause());
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        } catch (RuntimeException e) {
            // A store's own bug: answered like a failure, so the outage policy decides and nothing reaches a 500.
            monitor.failure(e);
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        } finally {
            metrics.backendCall(backend, System.nanoTime() - start);
        }
    }

    @Override
    public void reset(Bucket bucket, String key) {
        try {
            store.reset(bucket, key);
        } catch (StoreException e) {
            monitor.failure(e.getCause()); // the windows simply run out
        } catch (RuntimeException e) {
            monitor.failure(e);
        }
    }

    /** The store, for the breaker's probe and parts. */
    public RateLimitStore store() {
        return store;
    }
}
