package dev.ratelimiter.bench;

import dev.ratelimiter.spi.ForwardingRateLimitStore;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A store that counts its round trips: each {@link #consume} (one call, alone) and each {@link #consumeEach}
 * (the calls batching carried together) is one, however many decisions it answers. What a figure's
 * {@code store_round_trips_per_s} reports beside the decisions per second, so a row shows whether waiting decisions
 * shared round trips (docs/stores.md#batching).
 */
final class CountingStore extends ForwardingRateLimitStore {

    private final LongAdder roundTrips = new LongAdder();

    CountingStore(RateLimitStore store) {
        super(store);
    }

    /** Round trips of {@code consume} and {@code consumeEach} so far. */
    long roundTrips() {
        return roundTrips.sum();
    }

    @Override
    public long[] consume(List<StoreItem> items) throws StoreException {
        roundTrips.increment();
        return super.consume(items);
    }

    @Override
    public long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
        roundTrips.increment();
        return super.consumeEach(calls);
    }
}
