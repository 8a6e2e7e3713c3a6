package dev.ratelimiter.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;

import java.util.concurrent.atomic.AtomicLong;

/** Counts the calls that reach the store's limiter, to show when the breaker keeps them away. */
final class CountingLimiter implements RateLimiter {

    private final RateLimiter store;
    private final AtomicLong calls = new AtomicLong();

    CountingLimiter(RateLimiter store) {
        this.store = store;
    }

    long calls() {
        return calls.get();
    }

    @Override
    public Verdict consume(Bucket bucket, String key) {
        calls.incrementAndGet();
        return store.consume(bucket, key);
    }

    @Override
    public void reset(Bucket bucket, String key) {
        calls.incrementAndGet();
        store.reset(bucket, key);
    }
}
