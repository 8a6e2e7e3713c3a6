package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.verdict.TokenBuckets;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.spi.TokenBucketTiming;

import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;

/**
 * One key's token buckets, one per window of its bucket, as the generic cell rate algorithm keeps them: each
 * window's theoretical arrival time (TAT, epoch microseconds), the instant at which it would be full again. A
 * call of cost c moves it c token intervals on from max(TAT, now), and is allowed iff every window's TAT then
 * stays within its capacity's time (capacity × interval) from now. Read and written under this object's lock.
 * Under another bucket of its name (a plan's limits), each window's interval and capacity are the call's bucket's
 * and its TAT carries, read as at most empty, as a {@link TokenBucketCell}'s.
 */
final class LockedTokenBuckets extends LockedState {
    private final Bucket shape; // the bucket it was made for, whose numbers are those below
    private final long[] intervalMicros;
    private final long[] capacities;
    private final long[] tat;

    LockedTokenBuckets(Bucket bucket) {
        shape = bucket;
        int size = bucket.limits().size();
        intervalMicros = new long[size];
        capacities = new long[size];
        tat = new long[size];
        for (int i = 0; i < size; i++) {
            intervalMicros[i] = tokenIntervalMicros(bucket, i);
            capacities[i] = TokenBucketTiming.capacity(bucket, i);
            tat[i] = Long.MIN_VALUE; // full
        }
    }

    /**
     * Any token bucket of as many windows: each window's TAT carries under another capacity, rate or window in
     * its place (a plan, or settings changed), read as at most a full refill, as PostgreSQL's rows carry
     * (docs/stores.md#counters-across-a-change-of-settings).
     */
    @Override
    boolean matches(Bucket bucket) {
        return bucket == shape || bucket.isTokenBucket() && bucket.limits().size() == tat.length;
    }

    private long interval(Bucket bucket, int i) {
        return bucket == shape ? intervalMicros[i] : tokenIntervalMicros(bucket, i);
    }

    private long capacity(Bucket bucket, int i) {
        return bucket == shape ? capacities[i] : TokenBucketTiming.capacity(bucket, i);
    }

    /** Every window has the tokens, or nothing changes. */
    @Override
    Verdict decideLocked(Bucket bucket, long cost, long nowMillis) {
        long now = nowMillis * TokenBucketCell.MICROS_PER_MILLI;
        int size = tat.length;
        long needed = Verdicts.needed(cost);
        boolean allowed = true;
        for (int i = 0; i < size; i++) {
            long interval = interval(bucket, i);
            long capacity = capacity(bucket, i);
            long owed = Math.min(Math.max(tat[i], now) - now, capacity * interval); // at most empty
            allowed &= needed <= capacity && owed + needed * interval <= capacity * interval;
        }
        long[] remaining = new long[size];
        long[] fullMillis = new long[size];
        for (int i = 0; i < size; i++) {
            long interval = interval(bucket, i);
            long capacityMicros = capacity(bucket, i) * interval;
            long owed = Math.min(Math.max(tat[i], now) - now, capacityMicros);
            if (allowed && cost > 0) {
                owed += cost * interval;
                tat[i] = now + owed;
            } else if (tat[i] > now + owed) {
                tat[i] = now + owed; // the clamp kept (docs/stores.md#counters-across-a-change-of-settings)
            }
            remaining[i] = (capacityMicros - owed) / interval;
            fullMillis[i] = TokenBucketCell.ceilMillis(owed);
        }
        return TokenBuckets.of(bucket, cost, allowed, remaining, fullMillis);
    }

    @Override
    void refundLocked(Bucket bucket, long cost, long[] endsIn, long nowMillis) {
        long now = nowMillis * TokenBucketCell.MICROS_PER_MILLI;
        for (int i = 0; i < tat.length; i++) {
            if (cost < 0) {
                tat[i] = TokenBuckets.debited(tat[i], now, -cost, interval(bucket, i), capacity(bucket, i), 0);
            } else if (tat[i] > now) {
                tat[i] = Math.max(now, tat[i] - cost * interval(bucket, i));
            }
        }
    }

    /** Each window as many whole tokens short of full as the store's verdict said, in the decided bucket's. */
    @Override
    void carryLocked(Bucket bucket, Verdict verdict, long nowMillis) {
        for (int i = 0; i < tat.length; i++) {
            long interval = interval(bucket, i);
            long capacity = capacity(bucket, i);
            long missing = Math.max(0, capacity - verdict.windows().get(i).remaining());
            tat[i] = nowMillis * TokenBucketCell.MICROS_PER_MILLI + Math.min(missing * interval, capacity * interval);
        }
    }

    @Override
    boolean ended(long now) {
        for (long end : tat) {
            if (now * TokenBucketCell.MICROS_PER_MILLI < end) {
                return false;
            }
        }
        return true;
    }
}
