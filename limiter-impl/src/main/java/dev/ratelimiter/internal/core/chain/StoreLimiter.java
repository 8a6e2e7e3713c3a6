package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreAnswers;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.internal.core.verdict.Permits;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A {@link RateLimitStore} as the innermost limiter of the outage chain (docs/architecture.md#the-store-spi):
 * turns the store's numbers into verdicts ({@link Verdicts#fromAnswer}, the one place for that rule), times each call
 * for the metrics, and turns each failure into an {@code UNAVAILABLE} verdict. Where the store offers batching
 * ({@link RateLimitStore#batching()}), the calls that wait for it share round trips ({@link RoundTripBatcher},
 * docs/stores.md#batching). Each round trip, however many calls it carried, is reported once: a failure to the
 * {@link BackendMonitor}, and its outcome to the {@link RoundTripListener} (the circuit breaker). Never throws out
 * of {@link #consume}, {@link #consumeAll}, {@link #refund} or {@link #reset}.
 */
public final class StoreLimiter implements BatchingLimiter {

    private final RateLimitStore store;
    private final BackendMonitor monitor;
    private final RateLimiterMetrics metrics;
    private final String backend;
    private final RoundTripBatcher.Outcomes outcomes = this::roundTrip; // one, not one per call
    private final RoundTripBatcher batcher; // null when every call goes alone
    private volatile RoundTripListener roundTrips = RoundTripListener.NONE;

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
        this.batcher = store.batching().map(b -> new RoundTripBatcher(store, b, outcomes)).orElse(null);
    }

    /**
     * Names who is told of each round trip from now on (the circuit breaker, when it is built over this limiter).
     *
     * @param listener told once per round trip
     */
    void reportRoundTripsTo(RoundTripListener listener) {
        this.roundTrips = Objects.requireNonNull(listener, "listener");
    }

    /** Whether the calls waiting for the store share round trips. */
    public boolean batching() {
        return batcher != null;
    }

    /** One call of the store, alone or carried with others; a failure is reported once per round trip. */
    private long[] call(List<StoreItem> items) throws StoreException {
        return batcher != null ? batcher.consume(items) : RoundTripBatcher.alone(store, items, outcomes);
    }

    private void roundTrip(StoreItem first, StoreException failure) {
        if (failure != null) {
            monitor.failure(failure.getCause());
        }
        roundTrips.completed(first, failure != null);
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        long start = System.nanoTime();
        try {
            long[] answer = call(List.of(new StoreItem(bucket, key, cost)));
            return Verdicts.fromAnswer(bucket, cost, answer, 0);
        } catch (StoreException e) {
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        } catch (RuntimeException e) {
            // An answer that does not fit the bucket: the store's bug, answered like a failure.
            monitor.failure(e);
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        } finally {
            metrics.backendCall(backend, System.nanoTime() - start);
        }
    }

    /**
     * Decides every item in one {@link RateLimitStore#consume} call (one round trip where the store allows it). A
     * failed call, or an answer that does not fit the items, makes every item {@code UNAVAILABLE}: the outage
     * policy then answers each by its bucket's policy, without another call.
     *
     * @param items one or more items, keys hashed
     * @return one verdict per item the store decided, in order; one per item when the call failed
     */
    @Override
    public Verdict[] consumeAll(List<StoreItem> items) {
        long start = System.nanoTime();
        try {
            return verdicts(items, call(items));
        } catch (StoreException e) {
            return unavailable(items);
        } catch (RuntimeException e) {
            monitor.failure(e); // an answer that does not fit the items, as in consume
            return unavailable(items);
        } finally {
            metrics.backendCall(backend, System.nanoTime() - start);
        }
    }

    /** Reads the store's answer item by item; it ends after the first refused item. */
    private static Verdict[] verdicts(List<StoreItem> items, long[] answer) {
        Verdict[] verdicts = new Verdict[items.size()];
        int offset = 0;
        for (int i = 0; i < verdicts.length; i++) {
            StoreItem item = items.get(i);
            verdicts[i] = Verdicts.fromAnswer(item.bucket(), item.cost(), answer, offset);
            offset += StoreAnswers.length(item.bucket());
            if (verdicts[i].outcome() != Verdict.Outcome.ALLOWED) {
                return i + 1 == verdicts.length ? verdicts : java.util.Arrays.copyOf(verdicts, i + 1);
            }
        }
        return verdicts;
    }

    private static Verdict[] unavailable(List<StoreItem> items) {
        Verdict[] verdicts = new Verdict[items.size()];
        for (int i = 0; i < verdicts.length; i++) {
            verdicts[i] = Verdict.unavailable(items.get(i).bucket().limit(), Duration.ZERO);
        }
        return verdicts;
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

    /**
     * Gives the refunds back in one {@link RateLimitStore#refund} call. A failure is reported to the monitor, as a
     * reset's, and drops the refunds: they are never sent again, since a retry could land in a later window.
     *
     * @return false if the store failed
     */
    @Override
    public boolean refund(List<StoreRefund> refunds) {
        return timed(() -> {
            store.refund(refunds);
            return true;
        }, false);
    }

    /**
     * Takes a permit in one {@link RateLimitStore#take} call; the leases the store found ended are counted in the
     * metrics. A failure, or an answer that does not fit, is {@code UNAVAILABLE}.
     */
    @Override
    public Verdict take(StorePermit permit) {
        return timed(() -> {
            long[] answer = store.take(permit);
            Verdict verdict = Permits.fromAnswer(permit.bucket(), answer);
            long expired = Permits.expired(answer);
            if (expired > 0) {
                metrics.expiredLeases(permit.bucket(), expired);
            }
            return verdict;
        }, Verdict.unavailable(permit.bucket().limit(), Duration.ZERO));
    }

    /** Gives permits back in one {@link RateLimitStore#giveBack} call; false if the store failed. */
    @Override
    public boolean giveBack(List<StorePermit> permits) {
        return timed(() -> {
            store.giveBack(permits);
            return true;
        }, false);
    }

    /** Renews leases in one {@link RateLimitStore#renew} call; {@code null} if the store failed. */
    @Override
    public boolean[] renew(List<StorePermit> permits) {
        return timed(() -> {
            long[] answer = store.renew(permits);
            if (answer.length != permits.size()) {
                throw new IllegalStateException("the store answered " + answer.length + " numbers to a renewal of "
                        + permits.size() + " permits");
            }
            boolean[] held = new boolean[answer.length];
            for (int i = 0; i < held.length; i++) {
                held[i] = answer[i] == 1;
            }
            return held;
        }, null);
    }

    /** One store call besides a decision: timed for the metrics, its failure (or an unfit answer) reported. */
    private <T> T timed(StoreCall<T> call, T onFailure) {
        long start = System.nanoTime();
        try {
            return call.call();
        } catch (StoreException e) {
            monitor.failure(e.getCause());
        } catch (RuntimeException e) {
            monitor.failure(e);
        } finally {
            metrics.backendCall(backend, System.nanoTime() - start);
        }
        return onFailure;
    }

    @FunctionalInterface
    private interface StoreCall<T> {
        T call() throws StoreException;
    }

    /** The store, for the breaker's probe and parts. */
    public RateLimitStore store() {
        return store;
    }
}
