package dev.ratelimiter.core;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;

import java.time.Duration;
import java.util.Objects;
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
 * <p>Never throws: a call that cannot be handed over or does not finish within {@code deadline} is reported to
 * the monitor and answered {@code UNAVAILABLE}, so the bucket's outage policy decides.
 */
public final class OutsideTransactionLimiter implements RateLimiter {

    private final RateLimiter store;
    private final BooleanSupplier inTransaction;
    private final ExecutorService executor;
    private final long deadlineNanos;
    private final BackendMonitor monitor;

    /**
     * @param store         the store's limiter (itself never throwing)
     * @param inTransaction whether the calling thread has a JTA transaction
     * @param executor      runs tasks with no transaction: the server's managed executor
     * @param deadline      how long a caller waits for a handed-over call: longer than the store's own deadline
     * @param monitor       told of calls that could not be handed over or timed out
     */
    public OutsideTransactionLimiter(RateLimiter store, BooleanSupplier inTransaction, ExecutorService executor,
                                     Duration deadline, BackendMonitor monitor) {
        this.store = Objects.requireNonNull(store, "store");
        this.inTransaction = Objects.requireNonNull(inTransaction, "inTransaction");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.deadlineNanos = deadline.toNanos();
        this.monitor = Objects.requireNonNull(monitor, "monitor");
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        if (!inTransaction.getAsBoolean()) {
            return store.consume(bucket, key, cost);
        }
        try {
            return await(executor.submit(() -> store.consume(bucket, key, cost)));
        } catch (RejectedExecutionException | TimeoutException | ExecutionException e) {
            monitor.failure(e);
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        }
    }

    @Override
    public void reset(Bucket bucket, String key) {
        if (!inTransaction.getAsBoolean()) {
            store.reset(bucket, key);
            return;
        }
        try {
            await(executor.submit(() -> store.reset(bucket, key)));
        } catch (RejectedExecutionException | TimeoutException | ExecutionException e) {
            monitor.failure(e); // the window simply runs out
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private <T> T await(Future<T> call) throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return call.get(deadlineNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            call.cancel(false); // not started yet: never start it
            throw e;
        }
    }
}
