package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the calls that reach a store's limiter, so a test can show that the circuit breaker keeps them away. Several
 * items pass on in one call, as the library's chain passes them, and count as one.
 */
public final class CountingLimiter implements BatchingLimiter {

    private final Limiter store;
    private final AtomicLong calls = new AtomicLong();

    public CountingLimiter(Limiter store) {
        this.store = store;
    }

    /** Calls of {@code consume}, {@code consumeAll}, {@code refund} and {@code reset} so far. */
    public long calls() {
        return calls.get();
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        calls.incrementAndGet();
        return store.consume(bucket, key, cost);
    }

    @Override
    public Verdict[] consumeAll(List<StoreItem> items) {
        calls.incrementAndGet();
        return BatchingLimiter.consumeAll(store, items);
    }

    @Override
    public void reset(Bucket bucket, String key) {
        calls.incrementAndGet();
        store.reset(bucket, key);
    }

    @Override
    public boolean refund(List<StoreRefund> refunds) {
        calls.incrementAndGet();
        return store.refund(refunds);
    }
}
