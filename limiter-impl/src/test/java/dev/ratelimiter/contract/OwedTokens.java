package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;

import java.util.ArrayList;
import java.util.List;

import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;

/**
 * A token bucket's key at one instant, as the rule keeps it: per window the microseconds owed until full (its
 * TAT less now), whatever bucket of the name took the tokens; read under a call's bucket as at most a full
 * refill (capacity × interval), and kept so. {@link PlanCases} checks a store's token buckets under plans
 * against it.
 */
final class OwedTokens {
    private final long[] owed;

    OwedTokens(int windows) {
        owed = new long[windows];
    }

    private static long full(Bucket bucket, int i) {
        return capacity(bucket, i) * tokenIntervalMicros(bucket, i);
    }

    private long owed(Bucket bucket, int i) {
        return Math.min(owed[i], full(bucket, i));
    }

    /** Every decision, allowed or not, keeps the time owed at most a full refill of its bucket. */
    void clamp(Bucket bucket) {
        for (int i = 0; i < owed.length; i++) {
            owed[i] = owed(bucket, i);
        }
    }

    boolean fits(Bucket bucket) {
        for (int i = 0; i < owed.length; i++) {
            if (owed(bucket, i) + tokenIntervalMicros(bucket, i) > full(bucket, i)) {
                return false;
            }
        }
        return true;
    }

    void take(Bucket bucket) {
        for (int i = 0; i < owed.length; i++) {
            owed[i] = owed(bucket, i) + tokenIntervalMicros(bucket, i);
        }
    }

    List<Long> left(Bucket bucket) {
        List<Long> left = new ArrayList<>();
        for (int i = 0; i < owed.length; i++) {
            left.add((full(bucket, i) - owed(bucket, i)) / tokenIntervalMicros(bucket, i));
        }
        return left;
    }

    /** Microseconds until a one-window bucket has a token for the call. */
    long wait(Bucket bucket) {
        return Math.max(0, owed(bucket, 0) + tokenIntervalMicros(bucket, 0) - full(bucket, 0));
    }
}
