package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.OutageListener;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Applies each bucket's {@link OutagePolicy} to the {@link Verdict.Outcome#UNAVAILABLE} verdicts of the limiter
 * it wraps; every other verdict passes through untouched.
 *
 * <ul>
 *   <li>{@code FALLBACK}: the per-process fallback limiter decides. Without one (the wrapped limiter is already
 *       the in-memory one), or when the fallback cannot decide either, the attempt is allowed as under
 *       {@code FAIL_OPEN}: there is nothing left that could count it.</li>
 *   <li>{@code FAIL_OPEN}: allowed, uncounted; {@code remaining} reports the full limit.</li>
 *   <li>{@code FAIL_CLOSED}: the {@code UNAVAILABLE} verdict is returned, for a 503.</li>
 * </ul>
 * Every answer is reported to the {@link OutageListener}. A reset clears the key in both limiters, so a reset made
 * during an outage also clears the fallback's counter.
 *
 * <p>The fallback starts an outage from what the store last said: each verdict the store gives a {@code FALLBACK}
 * bucket is carried into the fallback's counter for the key ({@link MemoryRateLimiter#carry}), so a key the store
 * refused stays refused, and one with 2 attempts left has at most 2, for the rest of the store's window
 * (docs/operations.md#what-the-fallback-knows).
 *
 * <p>{@link #consumeAll Several items} (the buckets of one method, docs/guide.md#several-limits-on-one-method): the
 * wrapped limiter decides them in one call; each {@code UNAVAILABLE} item is answered by its own bucket's policy, in
 * order, as if decided alone. An answer that stops the call (a {@code DENIED}, a fail-closed {@code UNAVAILABLE}, a
 * refusal of the fallback) ends the answer: later items are not counted. An item the policy lets through does not
 * stop the rest: the items the wrapped limiter did not decide (it stopped at that item, or at an open part of the
 * store) are asked for in a further call, so every item is decided exactly once.
 */
public final class OutagePolicyLimiter implements BatchingLimiter {

    private final Limiter store;
    private final Optional<MemoryRateLimiter> fallback;
    private final OutageListener listener;
    /** The most fail-open verdicts kept for buckets under explicit limits (docs/plans.md), one per limits. */
    private static final int MAX_UNTOUCHED = 1_024;

    private final Map<Bucket, Verdict> untouched = new ConcurrentHashMap<>(); // see failOpen

    /**
     * @param store    the limiter whose outages are handled
     * @param fallback the per-process limiter for {@code FALLBACK} buckets, or empty if {@code store} is it; it is
     *                 given each of the store's verdicts for those buckets ({@link MemoryRateLimiter#carry})
     * @param listener told of every attempt the policy answered
     */
    public OutagePolicyLimiter(Limiter store, Optional<MemoryRateLimiter> fallback, OutageListener listener) {
        this.store = Objects.requireNonNull(store, "store");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        Verdict verdict = store.consume(bucket, key, cost);
        if (verdict.outcome() != Verdict.Outcome.UNAVAILABLE) {
            carry(bucket, key, verdict);
            return verdict;
        }
        return outage(bucket, key, cost, verdict, BlockLimiter.callOf(key, cost));
    }

    /** Hands a {@code FALLBACK} bucket's store verdict to the fallback, which goes on from it in an outage. */
    private void carry(Bucket bucket, String key, Verdict verdict) {
        if (bucket.onOutage() == OutagePolicy.FALLBACK && fallback.isPresent()) {
            fallback.get().carry(bucket, key, verdict);
        }
    }

    /**
     * Decides the items as the class comment says: one call of the wrapped limiter, then one more for the items
     * after an item the policy let through, if it did not decide them.
     *
     * @param items one or more items, keys hashed
     * @return one verdict per decided item, in order, each after its bucket's policy
     */
    @Override
    public Verdict[] consumeAll(List<StoreItem> items) {
        int count = items.size();
        Verdict[] verdicts = null;
        int done = 0;
        String checked = null; // the key whose block's check an outage policy answered: its own item is no new call
        while (done < count) {
            Verdict[] decided = BatchingLimiter.consumeAll(store, done == 0 ? items : items.subList(done, count));
            if (verdicts == null) {
                if (decided.length == count && allowed(decided)) {
                    for (int i = 0; i < count; i++) {
                        carry(items.get(i).bucket(), items.get(i).key(), decided[i]);
                    }
                    return decided; // the common case: nothing to copy
                }
                verdicts = new Verdict[count];
            }
            for (Verdict verdict : decided) {
                StoreItem item = items.get(done);
                Verdict answer;
                if (verdict.outcome() == Verdict.Outcome.UNAVAILABLE) {
                    boolean call = BlockLimiter.callOf(item.key(), item.cost()) && !item.key().equals(checked);
                    answer = outage(item.bucket(), item.key(), item.cost(), verdict, call);
                    checked = BlockLimiter.checkedKey(item.key());
                } else {
                    carry(item.bucket(), item.key(), verdict);
                    answer = verdict;
                    checked = null; // only the item right after a check is the check's call
                }
                verdicts[done++] = answer;
                if (answer.outcome() != Verdict.Outcome.ALLOWED) {
                    return done == count ? verdicts : Arrays.copyOf(verdicts, done);
                }
            }
        }
        return verdicts;
    }

    private static boolean allowed(Verdict[] verdicts) {
        for (Verdict verdict : verdicts) {
            if (verdict.outcome() != Verdict.Outcome.ALLOWED) {
                return false;
            }
        }
        return true;
    }

    /**
     * The bucket's policy's answer for an {@code UNAVAILABLE} verdict of a count.
     *
     * @param call whether the item is a call of its own, counted by the listener; else a block's part of one
     */
    private Verdict outage(Bucket bucket, String key, long cost, Verdict verdict, boolean call) {
        return policy(bucket, verdict, call ? listener : OutageListener.NONE,
                memory -> memory.consume(bucket, key, cost));
    }

    /**
     * What a bucket's outage policy answers when the store could not: the store's {@code UNAVAILABLE} verdict
     * (fail closed), the fallback's own decision (fallback; fail open if the fallback cannot decide either), or the
     * verdict that counted nothing (fail open); each told to {@code listener}.
     */
    private Verdict policy(Bucket bucket, Verdict verdict, OutageListener listener,
                           Function<MemoryRateLimiter, Verdict> byFallback) {
        switch (bucket.onOutage()) {
            case FAIL_CLOSED:
                listener.failClosed(bucket);
                return verdict;
            case FALLBACK:
                if (fallback.isPresent()) {
                    Verdict decided = byFallback.apply(fallback.get());
                    if (decided.outcome() != Verdict.Outcome.UNAVAILABLE) {
                        listener.fallback(bucket);
                        return decided;
                    }
                }
                return failOpen(bucket, listener);
            case FAIL_OPEN:
            default:
                return failOpen(bucket, listener);
        }
    }

    /**
     * Takes a permit from the store; when it cannot answer, the bucket's policy decides: {@code FALLBACK} takes it
     * from the per-process fallback (so each process keeps the limit on its own), {@code FAIL_OPEN} lets the call
     * run without a permit ({@link #counted} is then false: nothing to give back), {@code FAIL_CLOSED} refuses.
     */
    @Override
    public Verdict take(StorePermit permit) {
        Verdict verdict = store.take(permit);
        return verdict.outcome() != Verdict.Outcome.UNAVAILABLE ? verdict
                : policy(permit.bucket(), verdict, listener, memory -> memory.take(permit));
    }

    /**
     * Gives permits back to the store and, for {@code FALLBACK} buckets, to the fallback, which may hold them from an
     * outage (a give-back of a permit not held changes nothing, so neither needs to know where it was taken).
     */
    @Override
    public boolean giveBack(List<StorePermit> permits) {
        return toBoth(permits, StorePermit::bucket, MemoryRateLimiter::giveBack, store::giveBack);
    }

    /**
     * Renews each permit where it may be held: the store and, for a {@code FALLBACK} bucket, the fallback. A permit
     * is held if either holds it; {@code null} (unknown) when the store could not be asked.
     */
    @Override
    public boolean[] renew(List<StorePermit> permits) {
        boolean[] carried = null;
        if (fallback.isPresent() && permits.stream().anyMatch(p -> p.bucket().onOutage() == OutagePolicy.FALLBACK)) {
            carried = fallback.get().renew(permits);
        }
        boolean[] held = store.renew(permits);
        if (held == null || carried == null) {
            return held;
        }
        for (int i = 0; i < held.length; i++) {
            held[i] |= carried[i] && permits.get(i).bucket().onOutage() == OutagePolicy.FALLBACK;
        }
        return held;
    }

    /**
     * Gives the refunds back where their calls were counted: the store, and for a {@code FALLBACK} bucket also the
     * fallback, which holds the store's counts carried or counted them itself in an outage (the same window test
     * keeps it from crediting anything else). A call the policy let through uncounted ({@link #counted}) has
     * nothing to give back and never reaches here.
     *
     * @return false if the store dropped them and the fallback did not take them all (a refund of a bucket of
     *         another policy was lost): in an outage, a {@code FALLBACK} bucket's refunds reach the fallback, which
     *         is then the one deciding
     */
    @Override
    public boolean refund(List<StoreRefund> refunds) {
        return toBoth(refunds, StoreRefund::bucket, MemoryRateLimiter::refund, store::refund);
    }

    /**
     * Sends what a call leaves behind (refunds, permits) to the fallback, for the items of {@code FALLBACK} buckets,
     * and to the store, each of which changes only what it holds.
     *
     * @return whether the store took them, or the fallback took them all
     */
    private <T> boolean toBoth(List<T> items, Function<T, Bucket> bucketOf,
                               BiPredicate<MemoryRateLimiter, List<T>> toFallback, Predicate<List<T>> toStore) {
        boolean allCarried = false;
        if (fallback.isPresent()) {
            List<T> carried = items.stream()
                    .filter(item -> bucketOf.apply(item).onOutage() == OutagePolicy.FALLBACK).toList();
            if (!carried.isEmpty()) {
                toFallback.test(fallback.get(), carried);
            }
            allCarried = carried.size() == items.size();
        }
        return toStore.test(items) || allCarried;
    }

    /**
     * Whether an {@code ALLOWED} verdict of this limiter counted the call somewhere (the store, or the fallback),
     * so that it has something to give back; false for a call a fail-open policy let through uncounted.
     *
     * @param bucket  the verdict's bucket
     * @param verdict a verdict this limiter returned
     */
    public boolean counted(Bucket bucket, Verdict verdict) {
        // isEmpty first: no outage yet, no bucket to hash (a record's hash walks its limits)
        return verdict.outcome() == Verdict.Outcome.ALLOWED
                && (untouched.isEmpty() || verdict != untouched.get(bucket));
    }

    @Override
    public void reset(Bucket bucket, String key) {
        store.reset(bucket, key);
        fallback.ifPresent(limiter -> limiter.reset(bucket, key));
    }

    /**
     * Allowed uncounted: one verdict per bucket (by value, so a bucket configured anew gets its own), kept so that
     * {@link #counted} knows it by identity.
     */
    private Verdict failOpen(Bucket bucket, OutageListener listener) {
        listener.failOpen(bucket);
        Verdict known = untouched.get(bucket);
        if (known != null) {
            return known;
        }
        if (untouched.size() >= MAX_UNTOUCHED && bucket.plan().equals(Bucket.EXPLICIT_PLAN)) {
            // Customers' own limits are as many as the customers: past the bound their verdicts are not kept, so
            // counted() takes such a call for counted and its refund, if any, is sent to a store that is down
            return Verdicts.untouched(bucket);
        }
        return untouched.computeIfAbsent(bucket, Verdicts::untouched);
    }
}
