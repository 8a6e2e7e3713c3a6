package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.spi.Sweepable;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Answers a key the store has refused from memory, without a round trip, while its refusal certainly holds. Once
 * the store answers {@link Verdict.Outcome#DENIED} for (bucket, key) with time t left in the window, every attempt
 * on that key is answered {@code DENIED} here until the earlier of (the call's start + t) and (the call's start +
 * {@link DenyCacheSettings#maxAge()}), on a monotonic clock. The call's start, not the answer's arrival, so that a
 * refusal from memory never outlives the store's window by the answer's travel time.
 *
 * <p>Only {@code DENIED} is kept: an {@code ALLOWED} answer changes with every attempt, and {@code UNAVAILABLE}
 * belongs to the outage policy. A reset through this limiter clears the key at once; a reset on another replica
 * is unseen here for at most {@code maxAge}. Attempts answered from memory are not counted by the store, which
 * changes nothing: a refused call is counted in no window and extends none.
 *
 * <p>Kept refusals stay exact with costs and several windows (docs/stores.md#refusals-kept-in-memory). A refusal says
 * that one window (the verdict's top-level one) had r attempts left, fewer than the call needed; until that window
 * ends, and barring a reset, its count can only grow, so r can only shrink. A later call is answered here only if it
 * needs more than r (a cost above r; cost 0 needs 1): the store would refuse it too. A cheaper call, which the store
 * might allow (a refusal of cost 10 with 5 left does not refuse a cost-1 call), goes to the store. The other windows of
 * a kept refusal are returned as the store last reported them, their resets moved on by the time elapsed: the decision
 * is exact, their {@code remaining} may lag what other replicas counted since.
 *
 * <p>A refusal holds only under the limits it was decided under: each keeps its bucket's {@link Bucket#limits()},
 * burst and algorithm, and a call whose bucket has other ones (the key's plan changed, docs/plans.md; or the bucket's
 * settings changed, docs/live-limits.md) goes to the store, and the kept refusal is dropped. Compared by identity first, so a call under the bucket
 * that was refused costs no list comparison, and the check allocates nothing.
 *
 * <p>Per bucket at most {@link DenyCacheSettings#maxKeys()} refusals are kept; past it new refusals go to the
 * store as before and nothing is evicted early. Ended entries are removed when looked up and by {@link #sweep()}.
 * A hit costs a map lookup, a clock read and the returned verdict.
 *
 * <p>{@link #consumeAll Several items} keep the order of a method's buckets
 * (docs/guide.md#several-limits-on-one-method): the items before the first one refused from memory go to the store
 * first, as one call, so they keep their count; only if the store allows them all is that item answered {@code DENIED}
 * from memory, and the answer ends there, as it would at a refusal of the store.
 */
public final class DenyCacheLimiter implements BatchingLimiter, PermitsPassThrough, Sweepable {

    private final Limiter store;
    private final long maxAgeNanos;
    private final int maxKeys;
    private final LongSupplier nanos;
    private final RateLimiterMetrics metrics;
    private final ConcurrentMap<String, Refusals> byBucket = new ConcurrentHashMap<>();

    /**
     * On {@link System#nanoTime()}.
     *
     * @param store    the limiter whose refusals are kept: the store behind its breaker, never a fallback
     * @param settings the age cap and the bound per bucket; must be {@linkplain DenyCacheSettings#enabled() on}
     * @param metrics  told of each refusal answered from memory
     */
    public DenyCacheLimiter(Limiter store, DenyCacheSettings settings, RateLimiterMetrics metrics) {
        this(store, settings, metrics, System::nanoTime);
    }

    /**
     * @param nanos a monotonic clock in nanoseconds, as {@link System#nanoTime()}; the other parameters are
     *              those above
     */
    public DenyCacheLimiter(Limiter store, DenyCacheSettings settings, RateLimiterMetrics metrics,
                            LongSupplier nanos) {
        this.store = Objects.requireNonNull(store, "store");
        if (!settings.enabled()) {
            throw new IllegalArgumentException("the deny cache is off (max-age 0): do not build it");
        }
        this.maxAgeNanos = saturatedNanos(settings.maxAge());
        this.maxKeys = settings.maxKeys();
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.nanos = Objects.requireNonNull(nanos, "nanos");
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        Refusals refusals = refusals(bucket);
        Verdict cached = cached(refusals, bucket, key, cost);
        if (cached != null) {
            return cached;
        }
        long resetsBefore = refusals.resets.get();
        long start = nanos.getAsLong();
        Verdict verdict = store.consume(bucket, key, cost);
        keepIfDenied(refusals, bucket, key, cost, verdict, start, resetsBefore);
        return verdict;
    }

    /**
     * Decides the items as the class comment says: those before the first item refused from memory in one call of
     * the store's limiter, then that item from memory, if the store allowed them all.
     *
     * @param items one or more items, keys hashed
     * @return one verdict per decided item, in order
     */
    @Override
    public Verdict[] consumeAll(List<StoreItem> items) {
        int count = items.size();
        Verdict[] verdicts = new Verdict[count];
        int done = 0;
        while (done < count) {
            int hit = done;
            while (hit < count && !refusedFromMemory(items.get(hit))) {
                hit++;
            }
            if (hit > done) {
                Verdict[] decided = decideInStore(items.subList(done, hit));
                System.arraycopy(decided, 0, verdicts, done, decided.length);
                done += decided.length;
                if (decided[decided.length - 1].outcome() != Verdict.Outcome.ALLOWED) {
                    return done == count ? verdicts : Arrays.copyOf(verdicts, done);
                }
            }
            if (done < count) {
                // Asked again, since the store's call took time: a refusal that ended meanwhile goes to the store.
                StoreItem item = items.get(done);
                Verdict cached = cached(refusals(item.bucket()), item.bucket(), item.key(), item.cost());
                if (cached != null) {
                    verdicts[done++] = cached;
                    return done == count ? verdicts : Arrays.copyOf(verdicts, done);
                }
            }
        }
        return verdicts;
    }

    /** Whether a kept refusal answers the item now; counts nothing. */
    private boolean refusedFromMemory(StoreItem item) {
        Refusals refusals = byBucket.get(item.bucket().name());
        Refusal refusal = refusals == null ? null : refusals.entries.get(item.key());
        return refusal != null && nanos.getAsLong() - refusal.expiresAt < 0 && refusal.decidedUnder(item.bucket())
                && Verdicts.needed(item.cost()) > refusal.room;
    }

    /** One call of the store's limiter for items none of which is refused from memory; keeps its refusals. */
    private Verdict[] decideInStore(List<StoreItem> items) {
        Refusals[] refusals = new Refusals[items.size()];
        long[] resetsBefore = new long[items.size()];
        for (int i = 0; i < refusals.length; i++) {
            refusals[i] = refusals(items.get(i).bucket());
            resetsBefore[i] = refusals[i].resets.get();
        }
        long start = nanos.getAsLong();
        Verdict[] verdicts = BatchingLimiter.consumeAll(store, items);
        for (int i = 0; i < verdicts.length; i++) {
            StoreItem item = items.get(i);
            keepIfDenied(refusals[i], item.bucket(), item.key(), item.cost(), verdicts[i], start, resetsBefore[i]);
        }
        return verdicts;
    }

    private Refusals refusals(Bucket bucket) {
        Refusals refusals = byBucket.get(bucket.name());
        return refusals != null ? refusals : byBucket.computeIfAbsent(bucket.name(), name -> new Refusals());
    }

    /** The kept refusal's answer for this call, counted in the metrics; {@code null} when the store must decide. */
    private Verdict cached(Refusals refusals, Bucket bucket, String key, long cost) {
        Refusal refusal = refusals.entries.get(key);
        if (refusal != null) {
            long now = nanos.getAsLong();
            if (now - refusal.expiresAt >= 0 || !refusal.decidedUnder(bucket)) {
                refusals.remove(key, refusal); // ended, or decided under other limits: the store decides this call
            } else if (Verdicts.needed(cost) > refusal.room) {
                metrics.cachedDenial(bucket);
                return refusal.answer(now);
            }
        }
        return null;
    }

    /**
     * Keeps the store's refusal of a call of {@code cost} that started at {@code start}: until the refusing window
     * ends, for the calls that need more than the room it had left. A token bucket's room grows as it refills, and a
     * sliding window's as the previous window slides out, so there the refusal holds only for calls needing at least
     * what the refused one needed, and only until the verdict's {@code resetAfter}: when the store could first allow
     * the refused call (docs/stores.md#refusals-kept-in-memory); for a token bucket that reserves, until its
     * max-wait before then, when a waiting call could be reserved (docs/guide.md#waiting-instead-of-refusing).
     */
    private void keepIfDenied(Refusals refusals, Bucket bucket, String key, long cost, Verdict verdict, long start,
                              long resetsBefore) {
        if (verdict.outcome() == Verdict.Outcome.DENIED) {
            long windowEndsAt = start + saturatedNanos(verdict.resetAfter());
            // A token bucket that reserves admits a waiting call max-wait before the refused one could pass
            long admitsAt = bucket.reserves() ? windowEndsAt - bucket.maxWait().toNanos() : windowEndsAt;
            if (admitsAt - start <= 0) {
                return;
            }
            long expiresAt = admitsAt - start < maxAgeNanos ? admitsAt : start + maxAgeNanos;
            long room = bucket.algorithm() != Algorithm.FIXED_WINDOW ? Verdicts.needed(cost) - 1
                    : verdict.remaining();
            refusals.keep(key, new Refusal(windowEndsAt, expiresAt, start, room, verdict, bucket.limits(),
                    bucket.burst(), bucket.algorithm()), resetsBefore, maxKeys);
        }
    }

    @Override
    public void reset(Bucket bucket, String key) {
        forget(bucket, key);
        store.reset(bucket, key);
    }

    /** Drops the key's kept refusal, and any refusal the store sent before this moment (its count has shrunk). */
    private void forget(Bucket bucket, String key) {
        Refusals refusals = byBucket.get(bucket.name());
        if (refusals != null) {
            refusals.resets.incrementAndGet(); // a refusal the store sent before this is not kept
            refusals.remove(key);
        }
    }

    /**
     * Forgets each refund's key's refusal first, as a reset does (a refusal the store sent before the refund is not
     * kept), since the count it was made from has shrunk; then sends the refunds on.
     */
    @Override
    public boolean refund(List<StoreRefund> refunds) {
        for (StoreRefund refund : refunds) {
            forget(refund.bucket(), refund.key());
        }
        return store.refund(refunds);
    }

    /** Permits pass through: no refusal of a permit is kept: one frees whenever a call ends. */
    @Override
    public Limiter permitsTo() {
        return store;
    }

    /** Removes every refusal whose time has passed; never throws. */
    @Override
    public long sweep() {
        long now = nanos.getAsLong();
        long removed = 0;
        for (Refusals refusals : byBucket.values()) {
            for (var entry : refusals.entries.entrySet()) {
                if (now - entry.getValue().expiresAt >= 0 && refusals.remove(entry.getKey(), entry.getValue())) {
                    removed++;
                }
            }
        }
        return removed;
    }

    /** Refusals kept for a bucket now, ended ones not yet removed included. */
    int size(Bucket bucket) {
        Refusals refusals = byBucket.get(bucket.name());
        return refusals == null ? 0 : refusals.size.get();
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2; // beyond 292 years: any window ends before, and the sum cannot overflow
        }
    }

    /**
     * One refusal: when the store's refusing window ends, when this process stops answering it, when the store was
     * asked, the most a call may need and still go to the store, the store's verdict, and the limits, burst and
     * algorithm of the bucket it was decided under.
     */
    private record Refusal(long windowEndsAt, long expiresAt, long askedAt, long room, Verdict verdict,
                           List<Limit> limits, long burst, Algorithm algorithm) {

        /**
         * Whether a call of {@code bucket} (of the refusal's name) has the limits the refusal was decided under: the
         * same list first (the same bucket, or a plan's bucket made once), else equal limits, without an iterator.
         */
        boolean decidedUnder(Bucket bucket) {
            List<Limit> other = bucket.limits();
            if (bucket.burst() != burst || bucket.algorithm() != algorithm) {
                return false;
            }
            if (other == limits) {
                return true;
            }
            int size = limits.size();
            if (other.size() != size) {
                return false;
            }
            for (int i = 0; i < size; i++) {
                if (!limits.get(i).equals(other.get(i))) {
                    return false;
                }
            }
            return true;
        }

        /** The kept refusal at {@code now}: its resets moved on by the time elapsed since the store was asked. */
        Verdict answer(long now) {
            Duration resetAfter = Duration.ofNanos(windowEndsAt - now);
            if (verdict.windows().isEmpty()) {
                return new Verdict(Verdict.Outcome.DENIED, verdict.limit(), verdict.remaining(), resetAfter);
            }
            Duration elapsed = Duration.ofNanos(now - askedAt);
            List<Verdict.Window> windows = new ArrayList<>(verdict.windows().size());
            for (Verdict.Window window : verdict.windows()) {
                Duration left = window.resetAfter().minus(elapsed);
                windows.add(new Verdict.Window(window.limit(), window.remaining(),
                        left.isNegative() ? Duration.ZERO : left));
            }
            return new Verdict(Verdict.Outcome.DENIED, verdict.limit(), verdict.remaining(), resetAfter, windows);
        }
    }

    /** A bucket's refusals, their count (kept apart: a map's size is not cheap) and its resets so far. */
    private static final class Refusals {
        final ConcurrentMap<String, Refusal> entries = new ConcurrentHashMap<>();
        final AtomicInteger size = new AtomicInteger();
        final AtomicLong resets = new AtomicLong();

        void keep(String key, Refusal refusal, long resetsBefore, int maxKeys) {
            if (entries.replace(key, refusal) == null) {
                if (size.incrementAndGet() > maxKeys) {
                    size.decrementAndGet(); // full: this refusal goes to the store next time, nothing is evicted
                    return;
                }
                if (entries.putIfAbsent(key, refusal) != null) {
                    size.decrementAndGet(); // another thread kept one for this key meanwhile
                    return;
                }
            }
            if (resets.get() != resetsBefore) {
                remove(key, refusal); // a reset ran while the store answered: its refusal may predate the reset
            }
        }

        boolean remove(String key, Refusal refusal) {
            if (entries.remove(key, refusal)) {
                size.decrementAndGet();
                return true;
            }
            return false;
        }

        void remove(String key) {
            if (entries.remove(key) != null) {
                size.decrementAndGet();
            }
        }
    }
}
