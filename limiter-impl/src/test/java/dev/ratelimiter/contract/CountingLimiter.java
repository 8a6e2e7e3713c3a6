package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the calls that reach a store's limiter, so a test can show that the circuit breaker keeps them away.
 */
public final class CountingLimiter implements RateLimiter {

    private final RateLimiter store;
    private final AtomicLong calls = new AtomicLong();

    public CountingLimiter(RateLimiter store) {
        this.store = store;
    }

    /** Calls of {@code consume} and {@code reset} so far. */
    public long calls() {
        return calls.get();
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        calls.incrementAndGet();
        return store.consume(bucket, key, cost);
    }

    @Override
    public void reset(Bucket bucket, String key) {
        calls.incrementAndGet();
        store.reset(bucket, key);
    }
}
