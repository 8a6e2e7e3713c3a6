package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the calls that reach a store's limiter, so a test can show that the circuit breaker keeps them away. Several
 * items pass on in one call, as the library's chain passes them, and count as one.
 */
public final class CountingLimiter implements BatchingLimiter {

    private final Limiter store;
    private final LongAdder calls = new LongAdder(); // not AtomicLong: the benchmark counts 64 threads through it

    public CountingLimiter(Limiter store) {
        this.store = store;
    }

    /** Calls of {@code consume}, {@code consumeAll}, {@code refund} and {@code reset} so far. */
    public long calls() {
        return calls.sum();
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        calls.increment();
        return store.consume(bucket, key, cost);
    }

    @Override
    public Verdict[] consumeAll(List<StoreItem> items) {
        calls.increment();
        return BatchingLimiter.consumeAll(store, items);
    }

    @Override
    public void reset(Bucket bucket, String key) {
        calls.increment();
        store.reset(bucket, key);
    }

    @Override
    public boolean refund(List<StoreRefund> refunds) {
        calls.increment();
        return store.refund(refunds);
    }
}
