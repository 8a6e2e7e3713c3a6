package dev.ratelimiter.spi;

import dev.ratelimiter.Bucket;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A store that hands every call to another, unchanged and on the caller's thread: the base of a store that adds
 * something around one (counts its round trips, moves its calls out of a transaction, traces them), which overrides
 * only the methods it adds to. Every method of {@link RateLimitStore} is forwarded, those the interface gives a
 * default too, so the wrapped store's own batching, refunds, permits, parts and {@link #close()} stay in force; a
 * method added to the interface is added here as well ({@code ForwardingRateLimitStoreTest} fails until it is). Answers
 * and exceptions pass through as the wrapped store gives them. Thread-safe when the wrapped store is.
 *
 * <p>Decisions come by two methods: {@link #consume} (one call, alone) and {@link #consumeEach} (the calls
 * batching carries in one round trip, docs/stores.md#batching). A subclass that adds to decisions overrides both,
 * or it misses every batched call.
 */
public abstract class ForwardingRateLimitStore implements RateLimitStore {

    private final RateLimitStore delegate;

    /**
     * @param delegate the store every call is handed to; owned by whoever closes this one ({@link #close()}
     *                 closes it)
     * @throws NullPointerException if {@code delegate} is null
     */
    protected ForwardingRateLimitStore(RateLimitStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The wrapped store. */
    protected final RateLimitStore delegate() {
        return delegate;
    }

    @Override
    public long[] consume(List<StoreItem> items) throws StoreException {
        return delegate.consume(items);
    }

    @Override
    public long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
        return delegate.consumeEach(calls);
    }

    @Override
    public Optional<StoreBatching> batching() {
        return delegate.batching();
    }

    @Override
    public void refund(List<StoreRefund> refunds) throws StoreException {
        delegate.refund(refunds);
    }

    @Override
    public long[] take(StorePermit permit) throws StoreException {
        return delegate.take(permit);
    }

    @Override
    public void giveBack(List<StorePermit> permits) throws StoreException {
        delegate.giveBack(permits);
    }

    @Override
    public long[] renew(List<StorePermit> permits) throws StoreException {
        return delegate.renew(permits);
    }

    @Override
    public void reset(Bucket bucket, String key) throws StoreException {
        delegate.reset(bucket, key);
    }

    @Override
    public void probe() throws StoreException {
        delegate.probe();
    }

    @Override
    public boolean blocking() {
        return delegate.blocking();
    }

    @Override
    public Optional<StoreParts> parts() {
        return delegate.parts();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
