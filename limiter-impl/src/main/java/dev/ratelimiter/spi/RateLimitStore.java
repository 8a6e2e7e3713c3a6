package dev.ratelimiter.spi;

import dev.ratelimiter.Bucket;

import java.util.List;
import java.util.Optional;

/**
 * Where counters live: the seam a store author implements (docs/architecture.md#the-store-spi;
 * docs/writing-a-store.md). The library wraps a store in everything else (key hashing, the circuit breaker, refusals
 * kept in memory, the outage policies, metrics and readiness), so a store only counts, and classifies its failures.
 *
 * <p>Counting rule (docs/guide.md#fixed-windows): each window of a bucket opens at the first attempt counted in it
 * for a key and lasts its length; a calendar window, a bucket's only window, lasts {@link CalendarPeriods#windowMillis}
 * from the attempt that opens it, until its period ends, and a window open longer than that from now ends then (a store
 * whose provider declares {@link RateLimitStoreProvider#calendarWindows()}). An item of cost c is allowed iff, in every
 * window of its bucket, the count so far plus max(c, 1) stays within the window's limit; only then is c added to every
 * window, atomically. A refused item counts in none and extends no window.
 *
 * <p>A store whose provider declares {@link dev.ratelimiter.Algorithm#TOKEN_BUCKET}
 * ({@link RateLimitStoreProvider#algorithms()}) decides an item of a token bucket by the generic cell rate algorithm
 * (docs/guide.md#token-buckets): each window keeps the time until it is full again, t; an item of cost c is allowed
 * iff, in every window i, max(c, 1) is at most its {@link TokenBucketTiming#capacity(Bucket, int) capacity} and
 * t + max(c, 1) × {@link TokenBucketTiming#tokenIntervalMicros(Bucket, int) interval} stays within capacity ×
 * interval; only then is c × interval added to every window's t, atomically. A refused item takes no token. A token
 * bucket that reserves ({@link dev.ratelimiter.Bucket#reserves()}: one window and a max-wait) allows t to go beyond
 * capacity × interval by up to {@link TokenBucketTiming#aheadMicros}: an item is allowed iff t + max(c, 1) × interval
 * stays within capacity × interval + that, and t is read as at most that too (docs/guide.md#waiting-instead-of-refusing).
 *
 * <p>A store whose provider declares {@link dev.ratelimiter.Algorithm#SLIDING_WINDOW} decides an item of a
 * sliding-window bucket by the sliding window counter (docs/guide.md#sliding-windows). Each window keeps, per key,
 * the count of its current window ({@code cur}), the count of the window before it ({@code prev}) and when the current
 * one ends. The first window opens at the key's first counted item and each next one when the one before ends, so a
 * key's windows keep their phase; a key with nothing counted for two window lengths has no state, and its next
 * counted item opens a new first window. At a time r milliseconds before the current window ends (1 ≤ r ≤ W, the
 * window's length in milliseconds), an item of cost c is allowed iff, in every window, {@code prev × r / W ≤ limit −
 * cur − max(c, 1)}, the left side computed in IEEE 754 double precision in that order (prev × r, then / W), so that
 * every store decides alike; only then is c added to every window's {@code cur}, atomically. A refused item counts
 * nothing and opens no window.
 *
 * <p>A store whose provider declares {@link dev.ratelimiter.Algorithm#CONCURRENCY} keeps a concurrency bucket's
 * permits apart from counters ({@link #take}, {@link #giveBack}, {@link #renew}); {@link #consume} is never called
 * with such a bucket, and {@link #reset} clears its permits too.
 *
 * <p>Implementations are thread-safe. They never see a key in clear ({@link StoreItem#key()} is hashed).
 */
public interface RateLimitStore extends AutoCloseable {

    /**
     * Decides the items in their order, each atomically over every window of its bucket, and stops at the first
     * refused item: later items are neither decided nor counted, earlier ones keep their count. A store that can
     * should decide them in one round trip.
     *
     * <p>The answer holds, for each decided item in order, {@link StoreItem#answerLength} numbers: {@code 1} if the
     * item was allowed (and counted) else {@code 0}; then, for each window in {@link Bucket#limits()} order, the
     * attempts counted in it after this call, and the milliseconds until it ends (the window's whole length when
     * none is open for the key); for a token bucket, the tokens missing from full (its capacity less the whole tokens
     * left) and the milliseconds until it is full, rounded up; for a sliding window three numbers, not two: its
     * {@code cur} after this call, its {@code prev}, and the milliseconds until its current window ends, r (cur and
     * prev 0 and r its whole length when the key has no state). It ends after the first refused item, so its length
     * says how many were decided. Counts above the limit and times outside 0..window are clamped by the caller.
     * {@link StoreAnswers} reads and writes this layout by name.
     *
     * @param items one or more items; an item's key may repeat in another item of another bucket
     * @return the decided items' numbers, as above
     * @throws StoreException the store failed or its deadline passed; an increment may have happened (a timeout)
     */
    long[] consume(List<StoreItem> items) throws StoreException;

    /**
     * Decides several independent calls in one round trip, each as {@link #consume} decides it: its items in order,
     * stopping at its first refused item. Calls do not stop each other; two calls may name the same key, and are
     * then decided in their order. Called only when {@link #batching()} is present, with calls that each lie in one
     * part of the store ({@link #parts()}) and, all of them, in the same part as it was when they were sent.
     *
     * <p>A call the store did not decide, and so counted nothing (a cluster redirected it, the script had to be
     * loaded), has {@code null} as its answer: the library then sends it again alone through {@link #consume}. A
     * round trip that failed throws, and fails every one of its calls: as for {@link #consume}, an increment may
     * have happened, so the library never sends them again.
     *
     * <p>The default decides the calls one {@link #consume} each, and fails them all at the first failure.
     *
     * @param calls two or more calls, each of one or more items, keys hashed
     * @return for each call, in order, {@link #consume}'s answer for it, or {@code null} if it was not decided
     * @throws StoreException the round trip failed or its deadline passed; an increment may have happened
     */
    default long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
        long[][] answers = new long[calls.size()][];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = consume(calls.get(i));
        }
        return answers;
    }

    /**
     * Whether and how the calls waiting for this store share round trips ({@link #consumeEach}); empty, the
     * default, when every call goes alone through {@link #consume}.
     */
    default Optional<StoreBatching> batching() {
        return Optional.empty();
    }

    /**
     * Gives counts back, in one round trip where the store can: each refund's cost leaves the windows its call was
     * counted in, for a bucket that counts failures only (docs/guide.md#counting-failures-only). Called only when
     * the store's provider declares {@link RateLimitStoreProvider#refunds()}.
     *
     * <p>The rule, per refund and per window i of its bucket (W its length in milliseconds): a fixed window whose
     * current window of the key ends in m milliseconds, with {@link StoreRefund#sameWindow
     * sameWindow(endsInMillis[i], m, W)}, has its count lowered by the cost, never below 0; a sliding window, by the
     * same test on its current window, has its {@code cur} lowered so, and its {@code prev} is never touched (the
     * window the call was counted in has ended); any other window (ended, opened since, or never opened) is left
     * alone, and no window opens or moves its end. A token bucket gets the cost back in every window: its time until
     * full, t, is lowered by cost × interval, never below 0. A refund writes nothing else, answers nothing, and may
     * be applied by several threads at once with the store's decisions (each atomically).
     *
     * <p>A negative cost ({@link StoreRefund#debit()}, only when the provider declares
     * {@link RateLimitStoreProvider#debits()}) is a debit, under the same rule with the sign turned: the window the
     * refund names has its count raised by −cost, past the limit if so (the key's next calls are refused until the
     * window ends), and no other window is touched; a token bucket's t becomes max(t, 0) + −cost × interval, at most
     * capacity × interval (empty: a bucket holds no debt below empty, as its decisions read it). A token bucket
     * whose key the store no longer holds (full, swept or expired) may be left alone. Several refunds of one key in
     * one call, of either sign, add up: a store may apply them in turn (each credit never below 0) or summed first,
     * which agree whenever no credit exceeds what the window holds, as the library's never do.
     *
     * <p>The default throws: a store written before refunds existed gives none, and the library never calls it then.
     *
     * @param refunds one or more refunds, keys hashed; a key may repeat in another refund of another bucket
     * @throws StoreException the store failed or its deadline passed: the library drops the refunds (it never sends
     *                        them again, since a retry could land in a later window) and counts them
     */
    default void refund(List<StoreRefund> refunds) throws StoreException {
        throw new UnsupportedOperationException(getClass().getName() + " gives no counts back");
    }

    /**
     * Takes a permit of a {@link dev.ratelimiter.Algorithm#CONCURRENCY concurrency} bucket, atomically, in one round
     * trip (docs/stores.md#permits). Called only when the provider's {@link RateLimitStoreProvider#algorithms()}
     * include {@code CONCURRENCY}.
     *
     * <p>The rule, on the store's own clock: the key's permits whose lease has ended (its deadline at or before now)
     * are removed first; then, if the permit's id is already held, its lease is renewed and it is allowed (a take
     * sent twice takes one permit); else, if fewer than the bucket's {@link dev.ratelimiter.Bucket#limit()} are
     * held, the permit is added with a lease ending {@link StorePermit#leaseMillis()} from now, else it is refused and
     * nothing changes but the removal. A {@link StorePermit#isCheck() check} adds nothing and is allowed iff a take
     * would be. What the store keeps for the key outlives no lease: it is gone, or swept, once every lease ended.
     *
     * @param permit the permit, its key hashed
     * @return three numbers: {@code 1} if allowed else {@code 0}; the permits held after this call; the permits whose
     *         lease had ended and were removed by it (a sign of a dead replica or too short a lease)
     * @throws StoreException the store failed or its deadline passed; the permit may have been taken (its lease then
     *                        ends unrenewed)
     */
    default long[] take(StorePermit permit) throws StoreException {
        throw new UnsupportedOperationException(getClass().getName() + " limits no concurrency");
    }

    /**
     * Gives permits back, in one round trip where the store can: each permit's id is removed from its key's permits.
     * Idempotent: a permit given back twice, or whose lease ended, or never taken, changes nothing, so the permits
     * held never drop below those really held. Called only as {@link #take} is.
     *
     * @param permits one or more permits, keys hashed
     * @throws StoreException the store failed: the library drops them, and each ends with its lease
     */
    default void giveBack(List<StorePermit> permits) throws StoreException {
        throw new UnsupportedOperationException(getClass().getName() + " limits no concurrency");
    }

    /**
     * Renews the leases of permits still in flight, in one round trip where the store can: a permit still held gets
     * a lease ending {@link StorePermit#leaseMillis()} from now on the store's clock; one whose lease ended, and was
     * removed or is past its deadline, is not taken again. Called only as {@link #take} is, for the calls that have
     * run for a third of their lease.
     *
     * @param permits one or more permits, keys hashed
     * @return for each permit, in order, {@code 1} if it was held and is renewed, {@code 0} if its lease had ended
     * @throws StoreException the store failed: the library tries again at the next renewal, within the lease
     */
    default long[] renew(List<StorePermit> permits) throws StoreException {
        throw new UnsupportedOperationException(getClass().getName() + " limits no concurrency");
    }

    /**
     * Clears every window of one key, so its next attempt opens new ones. Idempotent, and fine for a key never
     * counted.
     *
     * @param bucket the bucket
     * @param key    the hashed key
     * @throws StoreException the store failed (the reset is then lost and the windows simply run out)
     */
    void reset(Bucket bucket, String key) throws StoreException;

    /**
     * One cheap call that needs what a decision needs, with a decision's deadline: the write path (a store that
     * answers reads but refuses writes fails it). The circuit breaker's background probe calls it while the store
     * is out; never called on a user's request.
     *
     * @throws StoreException the store is still unavailable
     */
    void probe() throws StoreException;

    /**
     * Whether a call waits on the network or a lock, so the library moves decisions made on a reactive event loop
     * to a worker thread (docs/servers.md#quarkus-3332-jvm-mode, its non-blocking endpoints).
     */
    boolean blocking();

    /**
     * For a store made of parts that fail on their own (the masters of a Valkey cluster), which part holds a key
     * and each part's probe, so the circuit breaker keeps one state per part; empty for a store that is up or down
     * as a whole (the default).
     */
    default Optional<StoreParts> parts() {
        return Optional.empty();
    }

    /**
     * Releases what the store made (its pool, its client), when the application stops. Not called on a
     * DataSource or client the application gave it. The default does nothing.
     */
    @Override
    default void close() {
    }
}
