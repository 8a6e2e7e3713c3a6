package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.CalendarPeriods;
import dev.ratelimiter.spi.Sweepable;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.time.ForwardOnlyClock;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.internal.core.verdict.FixedWindows;
import dev.ratelimiter.internal.core.verdict.TokenBuckets;
import dev.ratelimiter.internal.core.verdict.SlidingWindows;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static dev.ratelimiter.spi.TokenBucketTiming.capacity;

/**
 * Fixed windows, token buckets and sliding windows in this process's memory: the embedded default, and the fallback
 * of a shared store.
 *
 * <p>A one-window bucket is exact under concurrency without locks: for a fixed window, each key has one cell whose
 * current window is swapped by compare-and-set when a window opens (the only allocation), and whose count grows in
 * place by compare-and-set only when the call's cost fits ({@link FixedWindowCell}); a sliding window's cell does the
 * same with its open span ({@link SlidingWindowCell}; both on {@link LockFreeCell}); for a token bucket, one number
 * per key, the time it is full again, moved on by compare-and-set only when the tokens are there
 * ({@link TokenBucketCell}, docs/guide.md#token-buckets). Either way a refused call changes nothing. A bucket of
 * several windows keeps, per key, one small state with each window's count and end (or time until full), decided
 * under that state's lock ({@link LockedState}: {@link LockedFixedWindows}, {@link LockedTokenBuckets}, {@link LockedSlidingWindows}),
 * so the windows are decided together and a refusal by one counts in none
 * (docs/guide.md#several-windows-per-bucket; docs/guide.md#sliding-windows). A sweeper retires a key's state once its
 * windows have ended, marking it before removing it, so an attempt can never be counted in a state that has left the
 * map ({@link KeyState}).
 *
 * <p>A key's state meets its bucket's changed settings (a reload or a restart) at its next call, as every store's
 * does (docs/stores.md#counters-across-a-change-of-settings): under a shorter window, a window opened under a longer
 * one ends within the new length, its count kept; a token bucket's time owed is kept at most a full refill; several
 * windows keep the counts of the lengths they had; one window to several or back, or another algorithm, starts
 * afresh.
 *
 * <p>Each bucket holds at most {@code maxKeysPerBucket} live counters ({@link KeyTable}). A new key beyond the cap is
 * answered {@link Verdict.Outcome#UNAVAILABLE} (the bucket's outage policy decides), counted in
 * {@link #refusedAtCap(String)} and warned about once per bucket; live counters are never evicted, since evicting one
 * would hand its key a fresh window. At the cap, ended windows of that bucket are swept at most once per second
 * before a key is refused.
 *
 * <p>Time comes from the {@link InstantSource} in milliseconds, made {@linkplain ForwardOnlyClock forward-only}: a
 * source stepped back (a wall clock set back an hour) does not keep a window shut for that hour; every window ends no
 * later than its length of elapsed time after it opened.
 *
 * <p>The hot path, an existing key of a one-window bucket, allocates only the returned verdict: the bucket's key
 * table is found by identity when the previous call used the same bucket (applications decide a few buckets, each
 * created once at startup), before falling back to the map by name; and the verdict's {@code resetAfter} is a
 * {@link Duration} the open window keeps for the millisecond it was made in ({@link OpenWindow}).
 *
 * <p>The only public class of its package: the key states, their table and the carry rule are package-private, their
 * fields changed by compare-and-set and under locks that only this package takes, so no other class can touch that
 * mutable state ({@code architecture.LayerRulesTest} holds it).
 */
public final class MemoryRateLimiter implements Limiter, Sweepable {

    private final InstantSource clock;
    private final int maxKeysPerBucket;
    private final CalendarPeriods periods = new CalendarPeriods();
    private final Map<String, KeyTable> buckets = new ConcurrentHashMap<>();
    private final MemoryPermits permits;
    // The key table of the bucket used last. Plain, not volatile: KeyTable's fields are final, so a thread that reads
    // a stale or racing value still sees a whole object, and a miss only costs the map lookup.
    private KeyTable recent;

    /**
     * @param clock            the time source; read through {@link ForwardOnlyClock#of}
     * @param maxKeysPerBucket live counters allowed per bucket, at least 1
     * @throws IllegalArgumentException if {@code maxKeysPerBucket} is below 1
     */
    public MemoryRateLimiter(InstantSource clock, int maxKeysPerBucket) {
        this.clock = ForwardOnlyClock.of(clock);
        if (maxKeysPerBucket < 1) {
            throw new IllegalArgumentException("maxKeysPerBucket must be at least 1, was " + maxKeysPerBucket);
        }
        this.maxKeysPerBucket = maxKeysPerBucket;
        this.permits = new MemoryPermits(this.clock, maxKeysPerBucket);
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        KeyTable keys = keys(bucket);
        long now = clock.millis();
        return bucket.algorithm() != Algorithm.FIXED_WINDOW || bucket.hasSeveralWindows()
                ? consumeState(keys, bucket, key, cost, now)
                : consumeOne(keys, bucket, key, cost, now, periods.windowMillis(bucket, now));
    }

    /**
     * Every bucket but a one-window fixed window: the key's {@link KeyState}, made for the bucket's shape (a token
     * bucket or sliding window of one window changed by compare-and-set, several windows under a lock). A call that
     * counts nothing (cost 0, or a cost no window could take) adds no state to a key that has none.
     */
    private static Verdict consumeState(KeyTable keys, Bucket bucket, String key, long cost, long now) {
        if (!bucket.hasSeveralWindows()) {
            Verdict verdict = decideCell(keys.get(key), bucket, cost, now);
            if (verdict != null) {
                return verdict;
            }
        }
        if ((cost == 0 || Verdicts.needed(cost) > bucket.largestCost()) && keys.get(key) == null) {
            return unopened(bucket, cost);
        }
        while (true) {
            KeyState state = keys.state(key, bucket, now);
            if (state == null) {
                return keys.refuse(bucket);
            }
            Verdict verdict = state.decide(bucket, cost, now);
            if (verdict != null) {
                return verdict;
            }
        }
    }

    /**
     * An existing key's token bucket or sliding window of one window, called on its class as a fixed window's cell
     * is ({@link #consumeOne}): no virtual call, whatever algorithms the application's other buckets use, and no
     * second look at the bucket's shape. Null when the key has no such cell (none yet, retired, or kept under
     * another algorithm): {@link KeyTable#state} then finds or makes it.
     */
    private static Verdict decideCell(KeyState state, Bucket bucket, long cost, long now) {
        if (state instanceof TokenBucketCell cell && bucket.isTokenBucket()) {
            return cell.decide(bucket, cost, now);
        }
        if (state instanceof SlidingWindowCell cell && bucket.isSlidingWindow()) {
            return cell.decide(bucket, cost, now);
        }
        return null;
    }

    /**
     * One fixed window, without locks or allocation beyond the verdict and an opened window: the key's
     * {@link FixedWindowCell}, called on its class (no virtual call), or a new one opened with this call counted.
     * {@code windowMillis} is how long a window opened now lasts: the bucket's length, or until a calendar window's
     * period ends ({@link CalendarPeriods}).
     */
    private static Verdict consumeOne(KeyTable keys, Bucket bucket, String key, long cost, long now,
                                      long windowMillis) {
        while (true) {
            KeyState state = keys.get(key);
            if (state == null) {
                long limit = bucket.limit();
                if (cost == 0 || Verdicts.needed(cost) > limit) {
                    return unopened(bucket, cost, windowMillis); // nothing to count: no window opens
                }
                if (!keys.reserve(now)) {
                    return keys.refuse(bucket);
                }
                KeyState fresh = new FixedWindowCell(new FixedWindow(now + windowMillis, cost));
                state = keys.putIfAbsent(key, fresh);
                if (state == null) {
                    return FixedWindows.single(bucket, true, limit - cost, windowMillis);
                }
                keys.release();
            }
            if (!(state instanceof FixedWindowCell cell)) {
                keys.retire(key, state); // counted under other windows (the bucket was built anew): start afresh
                continue;
            }
            Verdict verdict = cell.decide(bucket, cost, now, windowMillis);
            if (verdict != null) {
                return verdict; // else swept or reset a moment ago: the next lookup finds a new cell or none
            }
        }
    }

    /**
     * The verdict for a key with no state that nothing is counted for (cost 0, or a cost above a window's
     * capacity): every window at its capacity, a fixed window's whole length to run, a token bucket full.
     */
    static Verdict unopened(Bucket bucket, long cost) {
        return unopened(bucket, cost, bucket.limits().get(0).window().toMillis());
    }

    /** {@link #unopened(Bucket, long)}, the first window lasting {@code firstMillis} (a calendar window's rest). */
    static Verdict unopened(Bucket bucket, long cost, long firstMillis) {
        int count = bucket.limits().size();
        long[] remaining = new long[count];
        long[] resetMillis = new long[count];
        boolean allowed = true;
        for (int i = 0; i < count; i++) {
            remaining[i] = capacity(bucket, i);
            resetMillis[i] = bucket.isTokenBucket() ? 0
                    : i == 0 ? firstMillis : bucket.limits().get(i).window().toMillis();
            allowed &= Verdicts.needed(cost) <= remaining[i];
        }
        if (bucket.isSlidingWindow()) {
            return SlidingWindows.of(bucket, cost, allowed, new long[count], new long[count], resetMillis);
        }
        return bucket.isTokenBucket() ? TokenBuckets.of(bucket, cost, allowed, remaining, resetMillis)
                : FixedWindows.of(bucket, cost, allowed, remaining, resetMillis);
    }

    /**
     * Takes a shared store's verdict for a key as the key's counts here, so that this limiter, as the store's
     * fallback, goes on from what the store last said rather than from nothing
     * (docs/operations.md#what-the-fallback-knows): each window counts what the store's did (its limit less the
     * verdict's {@code remaining}) until the store's window ends ({@code resetAfter} from now). The store's counts
     * replace whatever this limiter counted for the key, so once the store answers again its counts rule. A verdict
     * that says nothing is counted (every window at its full limit) clears the key; an {@code UNAVAILABLE} verdict,
     * or one without a state per window for a bucket of several, is ignored. A new key beyond the bucket's cap
     * ({@code maxKeysPerBucket}) is not carried: the memory stays bounded, and nothing is refused for it. The rules
     * each key state shares are {@link Carry}'s.
     *
     * @param bucket  the bucket the store decided
     * @param key     the hashed key, as this limiter counts it
     * @param verdict the store's verdict (or a refusal kept in memory from the store)
     */
    public void carry(Bucket bucket, String key, Verdict verdict) {
        if (verdict.outcome() == Verdict.Outcome.UNAVAILABLE) {
            return;
        }
        long now = clock.millis();
        if (!Carry.fits(bucket, verdict)) {
            return;
        }
        if (Carry.countsNothing(bucket, verdict)) {
            reset(bucket, key);
            return;
        }
        Carry.into(keys(bucket), bucket, key, verdict, now);
    }

    /**
     * Gives each refund's cost back to the windows its call was counted in, as the store SPI's rule says
     * ({@link dev.ratelimiter.spi.RateLimitStore#refund}), on this limiter's clock: a window that has ended or
     * opened since is left alone. A key with no state, or one kept under other windows, gets nothing.
     *
     * @return true: memory is always reached
     */
    @Override
    public boolean refund(List<StoreRefund> refunds) {
        long now = clock.millis();
        for (StoreRefund refund : refunds) {
            KeyTable keys = buckets.get(refund.bucket().name());
            if (keys != null) {
                refundOne(keys, refund, now);
            }
        }
        return true;
    }

    /** One refund, looking the key up again when its state was retired meanwhile (swept, reset, carried anew). */
    private static void refundOne(KeyTable keys, StoreRefund refund, long now) {
        Bucket bucket = refund.bucket();
        boolean done = false;
        while (!done) {
            KeyState state = keys.get(refund.key());
            // No state, or one kept under other windows: nothing counted there to give back.
            done = state == null || !state.matches(bucket)
                    || state.refund(bucket, refund.cost(), refund.endsInMillis(), now);
        }
    }

    /**
     * Takes a permit of a concurrency bucket, exactly: at most its limit per key in this process, whatever the
     * threads ({@link MemoryPermits}), leases timed on this limiter's clock.
     */
    @Override
    public Verdict take(StorePermit permit) {
        return permits.take(permit);
    }

    @Override
    public boolean giveBack(List<StorePermit> given) {
        permits.giveBack(given);
        return true;
    }

    @Override
    public boolean[] renew(List<StorePermit> held) {
        return permits.renew(held);
    }

    /** The permits held for a key of a concurrency bucket (ended leases not yet dropped included); 0 for none. */
    public int heldPermits(String bucketName, String key) {
        return permits.held(bucketName, key);
    }

    @Override
    public void reset(Bucket bucket, String key) {
        permits.reset(bucket.name(), key);
        KeyTable keys = buckets.get(bucket.name());
        if (keys == null) {
            return;
        }
        KeyState state = keys.get(key);
        if (state != null) {
            keys.retire(key, state);
        }
    }

    @Override
    public long sweep() {
        long now = clock.millis();
        long swept = 0;
        for (KeyTable keys : buckets.values()) {
            swept += keys.sweep(now);
        }
        return swept + permits.sweep();
    }

    /** Live counters of a bucket (including ended windows not yet swept); 0 for a bucket never used. */
    public int liveCounters(String bucketName) {
        KeyTable keys = buckets.get(bucketName);
        return keys == null ? 0 : keys.live();
    }

    /** How many attempts of new keys were refused because the bucket was at its cap, since start. */
    public long refusedAtCap(String bucketName) {
        KeyTable keys = buckets.get(bucketName);
        return keys == null ? 0 : keys.refused();
    }

    private KeyTable keys(Bucket bucket) {
        KeyTable keys = recent;
        if (keys != null && (keys.bucket == bucket || keys.bucketName.equals(bucket.name()))) {
            return keys;
        }
        keys = buckets.get(bucket.name());
        if (keys == null) {
            keys = buckets.computeIfAbsent(bucket.name(), name -> new KeyTable(bucket, maxKeysPerBucket));
        }
        recent = keys;
        return keys;
    }
}
