package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

/**
 * The trace port: each decision, told to the span of the request it is made in, when the application traces
 * (docs/operations.md#decisions-on-the-trace). Never given a key: only the bucket, the plan, the outcome and what is
 * left. An adapter must not throw and must cost nothing but a look-up when no span records.
 */
@FunctionalInterface
public interface DecisionTracer {

    /** Traces nothing. */
    DecisionTracer NONE = (bucket, outcome, verdict, fallback) -> {
    };

    /** The limits allowed the call. */
    String ALLOWED = "allowed";
    /** The limits refused the call (429). */
    String REFUSED = "refused";
    /** Refused by the key's block after an earlier refusal (docs/guide.md#blocks-after-a-refusal). */
    String BLOCKED = "blocked";
    /** A fail-closed bucket could not decide (503). */
    String UNAVAILABLE = "unavailable";
    /** A bucket in shadow mode would have refused the call, and let it go on. */
    String SHADOW_REFUSED = "shadow_refused";
    /** The key is on the bucket's allow list, and the call went on where the limits refused it. */
    String ALLOW_LISTED = "allow_listed";
    /** The key is on the bucket's deny list: refused without a store call (429). */
    String DENY_LISTED = "deny_listed";

    /**
     * One decision.
     *
     * @param bucket   the bucket, under the call's plan
     * @param outcome  one of this interface's outcomes
     * @param verdict  the verdict acted on: its {@code remaining} and, for a refusal, its {@code Retry-After}
     * @param fallback whether the bucket's fallback per process decided, its shared store being degraded
     */
    void decided(Bucket bucket, String outcome, Verdict verdict, boolean fallback);
}
