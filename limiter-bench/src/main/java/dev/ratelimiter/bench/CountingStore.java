package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreBatching;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreParts;
import dev.ratelimiter.spi.StoreRefund;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * A store that counts its round trips: each {@link #consume} (one call, alone) and each {@link #consumeEach}
 * (the calls batching carried together) is one, however many decisions it answers. What a figure's
 * {@code store_round_trips_per_s} reports beside the decisions per second, so a row shows whether waiting decisions
 * shared round trips (docs/stores.md#batching).
 */
final class CountingStore implements RateLimitStore {

    private final RateLimitStore store;
    private final LongAdder roundTrips = new LongAdder();

    CountingStore(RateLimitStore store) {
        this.store = store;
    }

    /** Round trips of {@code consume} and {@code consumeEach} so far. */
    long roundTrips() {
        return roundTrips.sum();
    }

    @Override
    public long[] consume(List<StoreItem> items) throws StoreException {
        roundTrips.increment();
        return store.consume(items);
    }

    @Override
    public long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
        roundTrips.increment();
        return store.consumeEach(calls);
    }

    @Override
    public Optional<StoreBatching> batching() {
        return store.batching();
    }

    @Override
    public void refund(List<StoreRefund> refunds) throws StoreException {
        store.refund(refunds);
    }

    @Override
    public void reset(Bucket bucket, String key) throws StoreException {
        store.reset(bucket, key);
    }

    @Override
    public void probe() throws StoreException {
        store.probe();
    }

    @Override
    public boolean blocking() {
        return store.blocking();
    }

    @Override
    public Optional<StoreParts> parts() {
        return store.parts();
    }

    @Override
    public void close() {
        store.close();
    }
}
