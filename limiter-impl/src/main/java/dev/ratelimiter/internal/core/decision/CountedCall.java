package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StorePermit;

/**
 * A call counted in a bucket whose count is corrected once the call has run: one that counts failures only
 * (docs/guide.md#counting-failures-only), or one whose cost is settled after the call
 * (docs/guide.md#costs-settled-after-the-call); or a permit of a concurrency bucket, given back when the call ends
 * (docs/guide.md#concurrency-limits). Kept until the call's outcome is known.
 *
 * @param bucket          the bucket
 * @param key             the hashed key it was counted under
 * @param cost            its cost, 1 or more: what it reserved (1 for a permit)
 * @param verdict         the chain's {@code ALLOWED} verdict, whose windows' ends name where it was counted
 * @param decidedAtMillis the library's clock before the decision, epoch milliseconds
 * @param permit          the permit's id for a concurrency bucket; {@link StorePermit#CHECK} (0) for a count
 */
public record CountedCall(Bucket bucket, String key, long cost, Verdict verdict, long decidedAtMillis, long permit) {

    /** A count, not a permit. */
    public CountedCall(Bucket bucket, String key, long cost, Verdict verdict, long decidedAtMillis) {
        this(bucket, key, cost, verdict, decidedAtMillis, StorePermit.CHECK);
    }

    /** {@return whether this is a concurrency bucket's permit, given back when the call ends} */
    public boolean isPermit() {
        return permit != StorePermit.CHECK;
    }

    /** {@return the permit, as the chain gives it back} */
    StorePermit storePermit() {
        return new StorePermit(bucket, key, permit);
    }
}
