package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.ForwardingRateLimitStore;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Keeps a store's calls out of the caller's JTA transaction. A transactional server pool hands a caller inside a
 * transaction a connection enlisted in it: the counter would roll back with the caller's work and hold its row
 * lock until then. Some servers' connections do not even show it (Open Liberty's report autocommit), so no check
 * of the connection can be relied on. Instead, a call made while the caller's thread has a transaction runs on
 * the server's managed executor, whose tasks run with no transaction (Jakarta Concurrency), and the caller waits
 * for it; calls outside a transaction run on the caller's thread as before.
 *
 * <p>A call that cannot be handed over or does not finish within {@code deadline} fails with a
 * {@link FailureKind#TRANSIENT} {@link StoreException}, so the bucket's outage policy decides; the store's own
 * failures pass through as they are. The rest is the wrapped store's, on the caller's thread: its batching, parts and
 * close, and its probe, which the breaker runs on a thread of its own, never in a transaction.
 */
final class OutsideTransactionStore extends ForwardingRateLimitStore {

    private final BooleanSupplier inTransaction;
    private final ExecutorService executor;
    private final long deadlineNanos;

    /**
     * @param store         the store
     * @param inTransaction whether the calling thread has a JTA transaction
     * @param executor      runs tasks with no transaction: the server's managed executor
     * @param deadline      how long a caller waits for a handed-over call of one item: longer than the store's own
     *                      deadline (a call of several items waits that long per item, as the store decides them
     *                      one statement each)
     */
    OutsideTransactionStore(RateLimitStore store, BooleanSupplier inTransaction, ExecutorService executor,
                            Duration deadline) {
        super(store);
        this.inTransaction = Objects.requireNonNull(inTransaction, "inTransaction");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.deadlineNanos = deadline.toNanos();
    }

    @Override
    public long[] consume(List<StoreItem> items) throws StoreException {
        if (!inTransaction.getAsBoolean()) {
            return delegate().consume(items);
        }
        return handOver(() -> delegate().consume(items), items.size());
    }

    /** As {@link #consume}: handed over when the thread that carries the calls has a transaction. */
    @Override
    public long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
        if (!inTransaction.getAsBoolean()) {
            return delegate().consumeEach(calls);
        }
        return handOver(() -> delegate().consumeEach(calls), 1);
    }

    /** As {@link #consume}: handed over when the calling thread has a transaction, so no refund joins it. */
    @Override
    public void refund(List<StoreRefund> refunds) throws StoreException {
        if (!inTransaction.getAsBoolean()) {
            delegate().refund(refunds);
            return;
        }
        handOver(() -> {
            delegate().refund(refunds);
            return null;
        }, 1);
    }

    /**
     * As {@link #consume}: handed over when the calling thread has a transaction, so a permit taken neither rolls
     * back with it nor keeps the key's row locked, and every other take of the key waiting, until it ends.
     */
    @Override
    public long[] take(StorePermit permit) throws StoreException {
        if (!inTransaction.getAsBoolean()) {
            return delegate().take(permit);
        }
        return handOver(() -> delegate().take(permit), 1);
    }

    /** As {@link #consume}: handed over when the calling thread has a transaction. */
    @Override
    public void giveBack(List<StorePermit> permits) throws StoreException {
        if (!inTransaction.getAsBoolean()) {
            delegate().giveBack(permits);
            return;
        }
        handOver(() -> {
            delegate().giveBack(permits);
            return null;
        }, 1);
    }

    /** As {@link #consume}: handed over when the calling thread has a transaction. */
    @Override
    public long[] renew(List<StorePermit> permits) throws StoreException {
        if (!inTransaction.getAsBoolean()) {
            return delegate().renew(permits);
        }
        return handOver(() -> delegate().renew(permits), 1);
    }

    @Override
    public void reset(Bucket bucket, String key) throws StoreException {
        if (!inTransaction.getAsBoolean()) {
            delegate().reset(bucket, key);
            return;
        }
        handOver(() -> {
            delegate().reset(bucket, key);
            return null;
        }, 1);
    }

    private <T> T handOver(Callable<T> call, int items) throws StoreException {
        Future<T> future;
        try {
            future = executor.submit(call);
        } catch (RejectedExecutionException e) {
            throw new StoreException(FailureKind.TRANSIENT, e);
        }
        try {
            return future.get(deadlineNanos > Long.MAX_VALUE / items ? Long.MAX_VALUE : deadlineNanos * items,
                    TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false); // not started yet: never start it
            throw new StoreException(FailureKind.TRANSIENT, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StoreException failure) {
                throw failure;
            }
            throw new StoreException(FailureKind.TRANSIENT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(FailureKind.TRANSIENT, e);
        }
    }
}
