package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

/**
 * A call counted in a bucket whose count is corrected once the call has run: one that counts failures only
 * (docs/guide.md#counting-failures-only), or one whose cost is settled after the call
 * (docs/guide.md#costs-settled-after-the-call). Kept until the call's outcome is known.
 *
 * @param bucket          the bucket
 * @param key             the hashed key it was counted under
 * @param cost            its cost, 1 or more: what it reserved
 * @param verdict         the chain's {@code ALLOWED} verdict, whose windows' ends name where it was counted
 * @param decidedAtMillis the library's clock before the decision, epoch milliseconds
 */
public record CountedCall(Bucket bucket, String key, long cost, Verdict verdict, long decidedAtMillis) {
}
