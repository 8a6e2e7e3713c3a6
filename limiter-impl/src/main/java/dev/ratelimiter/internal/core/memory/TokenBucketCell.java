package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.verdict.TokenBuckets;
import dev.ratelimiter.internal.core.verdict.Verdicts;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.function.LongFunction;

import static dev.ratelimiter.spi.TokenBucketTiming.aheadMicros;
import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;

/**
 * One key's token bucket of a one-window bucket: its theoretical arrival time (epoch microseconds, when it is
 * full again), changed only by compare-and-set; {@link Long#MIN_VALUE} once retired. The interval and capacity
 * of the bucket it was made for are kept with it, computed once, so a decision under that bucket divides
 * nothing; under another of its name (a plan's limits, docs/plans.md) they are the call's bucket's, and the TAT
 * carries: the time owed until full is read under the call's capacity and rate, at most empty.
 *
 * <p>Not a {@link LockFreeCell}: that cell holds a window object whose count grows in place, and replaces it only
 * when a window opens; a token bucket's state is one number that moves on at every allowed call, so held as an object
 * it would allocate one per call, and held beside a retired mark it could not be checked and changed in one
 * compare-and-set. It keeps the same protocol on a {@code long}: changed only by compare-and-set, retired by setting
 * its sentinel, for good.
 *
 * <p>The verdict's {@code resetAfter} is the {@link Duration} handed out last when it is the same number of
 * milliseconds, as an {@link OpenWindow} keeps it: a hot key's calls within one millisecond (and an allowed call
 * of a fast bucket, whose time until full moves by less than a millisecond) report the same one, so they allocate
 * only the verdict. The reference takes the place of the capacity in microseconds, now multiplied per call, so the
 * cell stays 56 bytes with compressed references.
 */
final class TokenBucketCell extends KeyState implements LongFunction<Duration> {
    static final long MICROS_PER_MILLI = 1_000;
    private static final long RETIRED = Long.MIN_VALUE;
    private static final VarHandle TAT;

    static {
        try {
            TAT = MethodHandles.lookup().findVarHandle(TokenBucketCell.class, "tat", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Bucket shape; // the bucket it was made for, whose numbers are those below
    private final long interval;
    private final long capacity;
    private final long fillMillis;
    // The last resetAfter handed out. Plain, not volatile: Duration is immutable (final fields), so a racing reader
    // sees a whole one, and apply checks it is the right one before reusing it.
    private Duration resetAfter;
    @SuppressWarnings("unused") // read and updated through TAT
    private volatile long tat = RETIRED + 1; // full: any instant of this era is later

    TokenBucketCell(Bucket bucket) {
        shape = bucket;
        interval = tokenIntervalMicros(bucket, 0);
        capacity = capacity(bucket, 0);
        fillMillis = ceilMillis(capacity * interval);
    }

    /**
     * Any token bucket of one window: its TAT carries under another capacity, rate or window of its name (a plan,
     * or settings changed), read as at most a full refill (docs/stores.md#counters-across-a-change-of-settings).
     */
    @Override
    boolean matches(Bucket bucket) {
        return bucket == shape || bucket.isTokenBucket() && !bucket.hasSeveralWindows();
    }

    @Override
    Verdict decide(Bucket bucket, long cost, long nowMillis) {
        boolean own = bucket == shape;
        long interval = own ? this.interval : tokenIntervalMicros(bucket, 0);
        long capacity = own ? this.capacity : capacity(bucket, 0);
        long capacityMicros = capacity * interval;
        long fillMillis = own ? this.fillMillis : ceilMillis(capacityMicros);
        // A bucket that reserves may owe up to its max-wait beyond empty: the calls waiting for their tokens
        long ceiling = capacityMicros + aheadMicros(bucket);
        long now = nowMillis * MICROS_PER_MILLI;
        long needed = Verdicts.needed(cost);
        while (true) {
            long current = (long) TAT.getVolatile(this);
            if (current == RETIRED) {
                return null;
            }
            // At most empty: a key owing more time than this capacity holds (its plan's was larger, or slower,
            // or its window longer) owes a full refill under this one, as every store reads it (docs/plans.md).
            long unclamped = Math.max(current, now) - now;
            long owed = Math.min(unclamped, ceiling);
            boolean allowed = needed <= capacity && owed + needed * interval <= ceiling;
            if (allowed && cost > 0) {
                long next = owed + cost * interval;
                if (!TAT.compareAndSet(this, current, now + next)) {
                    continue;
                }
                owed = next;
            } else if (unclamped > ceiling && !TAT.compareAndSet(this, current, now + ceiling)) {
                // The clamp is kept, so the bucket refills from now as its verdict says, not from the old TAT
                // (docs/stores.md#counters-across-a-change-of-settings).
                continue;
            }
            return TokenBuckets.single(bucket, cost, allowed, (capacityMicros - owed) / interval,
                    ceilMillis(owed), fillMillis, this);
        }
    }

    /** A verdict's resetAfter of {@code millis}: the one handed out last when it is the same. */
    @Override
    public Duration apply(long millis) {
        Duration cached = resetAfter;
        if (cached == null || cached.toMillis() != millis) {
            cached = Duration.ofMillis(millis);
            resetAfter = cached;
        }
        return cached;
    }

    /**
     * The cost's tokens back: the time until full lowered by cost × the bucket's interval, never below now; or a
     * debit's tokens taken, at most to empty ({@link TokenBuckets#debited}).
     */
    @Override
    boolean refund(Bucket bucket, long cost, long[] endsIn, long nowMillis) {
        long interval = bucket == shape ? this.interval : tokenIntervalMicros(bucket, 0);
        long now = nowMillis * MICROS_PER_MILLI;
        while (true) {
            long current = (long) TAT.getVolatile(this);
            if (current == RETIRED) {
                return false;
            }
            long next;
            if (cost < 0) {
                next = TokenBuckets.debited(current, now, -cost, interval,
                        bucket == shape ? this.capacity : capacity(bucket, 0), aheadMicros(bucket));
            } else if (current <= now) {
                return true; // full already
            } else {
                next = Math.max(now, current - cost * interval);
            }
            if (TAT.compareAndSet(this, current, next)) {
                return true;
            }
        }
    }

    /** As many whole tokens short of full as the store's verdict said, in the decided bucket's tokens. */
    @Override
    boolean carry(Bucket bucket, Verdict verdict, long nowMillis) {
        long interval = bucket == shape ? this.interval : tokenIntervalMicros(bucket, 0);
        long capacity = bucket == shape ? this.capacity : capacity(bucket, 0);
        long owed = Math.min(Math.max(0, capacity - verdict.remaining()) * interval, capacity * interval);
        while (true) {
            long current = (long) TAT.getVolatile(this);
            if (current == RETIRED) {
                return false;
            }
            if (TAT.compareAndSet(this, current, nowMillis * MICROS_PER_MILLI + owed)) {
                return true;
            }
        }
    }

    @Override
    boolean retire() {
        while (true) {
            long current = (long) TAT.getVolatile(this);
            if (current == RETIRED) {
                return false;
            }
            if (TAT.compareAndSet(this, current, RETIRED)) {
                return true;
            }
        }
    }

    @Override
    boolean retireIfEnded(long now) {
        long current = (long) TAT.getVolatile(this);
        return current != RETIRED && now * MICROS_PER_MILLI >= current && TAT.compareAndSet(this, current, RETIRED);
    }

    /** Microseconds as whole milliseconds, rounded up: a token bucket's times as its verdicts give them. */
    static long ceilMillis(long micros) {
        return (micros + MICROS_PER_MILLI - 1) / MICROS_PER_MILLI;
    }
}
