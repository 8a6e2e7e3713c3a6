package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.TokenBucketTiming;

import java.time.Duration;
import java.util.Objects;

/**
 * A bucket's quota leases (docs/guide.md#quota-leases-for-hot-keys): each replica takes a share of a key's remaining
 * quota from the shared store in one round trip and decides from it locally, for keys allowed so often that a round
 * trip per call is the bottleneck.
 *
 * @param percent {@link PropertyTable#BUCKET_QUOTA_LEASE_PERCENT}: the largest share one replica leases at once, in
 *                percent of the bucket's smallest capacity (a window's limit, a token bucket's burst), 1 to 100
 * @param idle    {@link PropertyTable#BUCKET_QUOTA_LEASE_IDLE}: a lease unused this long is given back to the store;
 *                also how long a lease is sized to last at the key's recent rate. 100 ms to 1 minute
 */
public record QuotaLeaseSettings(int percent, Duration idle) {

    /** The shortest {@link #idle}: below it the sweep that gives leases back would run nearly all the time. */
    public static final Duration MIN_IDLE = Duration.ofMillis(100);
    /** The longest {@link #idle}. */
    public static final Duration MAX_IDLE = Duration.ofMinutes(1);

    /** @throws IllegalArgumentException if a value is outside the ranges above */
    public QuotaLeaseSettings {
        Objects.requireNonNull(idle, "idle");
        if (percent < 1 || percent > 100) {
            throw new IllegalArgumentException("a quota lease of " + percent + " %: must be from 1 to 100");
        }
        if (idle.compareTo(MIN_IDLE) < 0 || idle.compareTo(MAX_IDLE) > 0) {
            throw new IllegalArgumentException("a quota lease idle after " + idle + ": must be from " + MIN_IDLE
                    + " to " + MAX_IDLE);
        }
    }

    /**
     * The most one lease of {@code bucket} holds: {@link #percent} of its smallest capacity, rounded down, at least 1
     * (a bucket's limits under a plan give their own).
     *
     * @param bucket a fixed-window or token bucket
     * @return attempts, 1 or more
     */
    public long largestLease(Bucket bucket) {
        long smallest = Long.MAX_VALUE;
        for (int i = 0; i < bucket.limits().size(); i++) {
            smallest = Math.min(smallest, TokenBucketTiming.capacity(bucket, i));
        }
        return Math.max(1, smallest * percent / 100); // at most 10^14: no overflow
    }
}
