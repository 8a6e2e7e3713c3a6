package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.TokenBucketTiming;

/**
 * Whether an allowed call left a key near a window's limit, and whether it was the call that got it there
 * (docs/guide.md#near-the-limit). With {@code percent} of a window's capacity as the share, a window is near when
 * what is left is below the share ({@code remaining × 100 < percent × capacity}), and the call crossed when what it
 * found (what is left plus its cost) was not. No state per key: within a fixed window the count only grows, so
 * exactly one call of a window crosses. A window's capacity is its limit, or a token bucket's burst. A percent of 0
 * turns it off; a refused call counted nothing, so is never near.
 */
public final class NearLimit {

    private NearLimit() {
    }

    /**
     * @param bucket  the bucket decided
     * @param verdict its verdict for the call
     * @param percent the share, in percent of a window's capacity, from 0 (off) to 100
     * @return whether the call, allowed, left any window below the share
     */
    public static boolean near(Bucket bucket, Verdict verdict, int percent) {
        if (percent == 0 || verdict.outcome() != Verdict.Outcome.ALLOWED) {
            return false;
        }
        for (int i = 0; i < windows(verdict); i++) {
            if (below(capacity(bucket, i), remaining(verdict, i), percent)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param bucket  the bucket decided
     * @param verdict its verdict for the call, which {@link #near} found near
     * @param window  a window's index, in {@link Bucket#limits()} order (shortest window first)
     * @param cost    the call's cost (0 counted nothing, so crossed nothing)
     * @param percent the share, in percent, from 1 to 100
     * @return whether the call took that window below the share
     */
    public static boolean crossed(Bucket bucket, Verdict verdict, int window, long cost, int percent) {
        if (cost == 0) {
            return false;
        }
        return crossed(capacity(bucket, window), remaining(verdict, window), cost, percent);
    }

    /**
     * How many windows {@code verdict} speaks for: each of {@link Verdict#windows()}, or, without them (a one-window
     * bucket, a fail-open answer), the first window alone through its top-level values.
     */
    public static int windows(Verdict verdict) {
        return verdict.windows().isEmpty() ? 1 : verdict.windows().size();
    }

    /** What {@code verdict} says is left in window {@code window}, of the {@link #windows} it speaks for. */
    public static long remaining(Verdict verdict, int window) {
        return verdict.windows().isEmpty() ? verdict.remaining() : verdict.windows().get(window).remaining();
    }

    /** Whether {@code remaining} of {@code capacity} is below the share (at most 100 × 10^12: no overflow). */
    static boolean below(long capacity, long remaining, int percent) {
        return remaining * 100 < percent * capacity;
    }

    /** Whether the call left the window below the share and found it at or above. */
    static boolean crossed(long capacity, long remaining, long cost, int percent) {
        return below(capacity, remaining, percent) && !below(capacity, remaining + cost, percent);
    }

    /** A window's capacity: its limit, or a token bucket's burst (the tokens it holds when full). */
    public static long capacity(Bucket bucket, int window) {
        return bucket.isTokenBucket() ? TokenBucketTiming.capacity(bucket, window)
                : bucket.limits().get(window).limit();
    }
}
