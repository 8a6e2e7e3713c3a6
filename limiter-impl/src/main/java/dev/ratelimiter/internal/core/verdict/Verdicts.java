package dev.ratelimiter.internal.core.verdict;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreAnswers;

/**
 * What every algorithm's verdict shares: a store's answer decoded item by item and handed to its algorithm
 * ({@link FixedWindows}, {@link TokenBuckets}, {@link SlidingWindows}, named as the functions of the Valkey script
 * {@code decide.lua}), the verdict that counted nothing, and the room a cost needs. One window gives a verdict
 * without {@link Verdict#windows()}; several give every window's state, with the top-level values of the refusing
 * window that allows the call last for a refusal, else of the window with the fewest attempts left
 * (docs/guide.md#several-windows-per-bucket, its windows and response headers).
 */
public final class Verdicts {

    private Verdicts() {
    }

    /**
     * The smallest number of attempts a window must have left for a call of this cost: the cost, and 1 for cost
     * 0, which checks whether a cost-1 call would pass.
     *
     * @param cost the call's cost, not negative
     * @return at least 1
     */
    public static long needed(long cost) {
        return Math.max(1, cost);
    }

    /**
     * The verdict of one item of a store's answer ({@link dev.ratelimiter.spi.RateLimitStore#consume}), laid out as
     * {@link StoreAnswers} says.
     *
     * @param bucket the item's bucket
     * @param cost   the item's cost
     * @param answer the store's answer
     * @param at     where the item's numbers start
     * @return ALLOWED or DENIED
     * @throws IllegalStateException if the answer is too short for the bucket's windows
     */
    public static Verdict fromAnswer(Bucket bucket, long cost, long[] answer, int at) {
        int length = StoreAnswers.length(bucket);
        if (answer.length < at + length) {
            throw new IllegalStateException("the store answered " + answer.length + " numbers; " + (at + length)
                    + " expected for bucket " + bucket.name());
        }
        boolean allowed = StoreAnswers.allowed(answer, at);
        if (bucket.isTokenBucket()) {
            return TokenBuckets.fromAnswer(bucket, cost, allowed, answer, at);
        }
        if (bucket.isSlidingWindow()) {
            return SlidingWindows.fromAnswer(bucket, cost, allowed, answer, at);
        }
        return FixedWindows.fromAnswer(bucket, cost, allowed, answer, at);
    }

    /**
     * An allowed verdict that counted nothing: every window with its whole limit left and its whole length to run
     * (the kill switch, a fail-open outage).
     *
     * @param bucket the bucket
     * @return ALLOWED, with {@link Verdict#windows()} when the bucket has several windows
     */
    public static Verdict untouched(Bucket bucket) {
        if (bucket.isConcurrency()) {
            return Permits.untouched(bucket);
        }
        if (bucket.isSlidingWindow()) {
            return SlidingWindows.untouched(bucket);
        }
        if (bucket.isTokenBucket()) {
            return TokenBuckets.untouched(bucket);
        }
        return FixedWindows.untouched(bucket);
    }

    static Verdict.Outcome outcome(boolean allowed) {
        return allowed ? Verdict.Outcome.ALLOWED : Verdict.Outcome.DENIED;
    }

    static long clamp(long value, long max) {
        return Math.max(0, Math.min(value, max));
    }
}
