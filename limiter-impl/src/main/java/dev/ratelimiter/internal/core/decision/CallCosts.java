package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;

/**
 * The costs a call of a bucket may have: from 0 (a check, which counts nothing) to the most any of the bucket's
 * windows holds ({@link Bucket#largestCost()}). Checked at each decision, and at startup for the costs
 * {@code @RateLimited} declares, with one message for both.
 */
public final class CallCosts {

    private CallCosts() {
    }

    /**
     * Refuses a cost no call could be allowed with, or a negative one.
     *
     * @param bucket the call's bucket
     * @param cost   the call's cost
     * @throws IllegalArgumentException naming the bucket, the cost and the accepted range ({@link #problem})
     */
    public static void check(Bucket bucket, long cost) {
        if (cost < 0 || cost > bucket.largestCost()) {
            throw new IllegalArgumentException(problem(bucket, cost));
        }
    }

    /**
     * The message for a cost out of range, without the caller's place.
     *
     * @param bucket the call's bucket
     * @param cost   the cost out of range
     * @return the bucket, the cost and the range from 0 to the bucket's largest cost, with what bounds it
     */
    public static String problem(Bucket bucket, long cost) {
        return "cost " + cost + " is out of range for bucket '" + bucket.name() + "': from 0 to "
                + bucket.largestCost() + (bucket.isConcurrency() ? " (a call of a concurrency bucket holds one permit)"
                : bucket.isTokenBucket() ? " (the bucket's smallest capacity: its burst, or a longer window's limit)"
                : " (the bucket's smallest limit)");
    }
}
