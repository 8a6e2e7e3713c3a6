package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.key.KeyLists.Listing;
import dev.ratelimiter.internal.core.monitor.DecisionTracer;

import java.time.Duration;

/**
 * What {@link RateLimitDecider} answers and reports beside the chain's verdict: a listed key's decision, to the
 * metrics and the trace (docs/guide.md#allow-and-deny-lists), and every decision to the trace port
 * (docs/operations.md#decisions-on-the-trace).
 */
final class DecisionReports {

    private DecisionReports() {
    }

    /** What the bucket's lists in force say of the key. */
    static Listing listing(DecisionPath path, Bucket bucket, String normalized, KeyNormalization normalization) {
        return path.assembly().lists().of(bucket.name()).listing(normalized, normalization);
    }

    /**
     * The refusal of a key on the bucket's deny list, asked of no store, counted and traced. No denial event: the
     * limits did not refuse it.
     */
    static Verdict denyListed(DecisionPath path, Bucket bucket) {
        path.metrics().listedDecision(bucket, true);
        Verdict refusal = refusal(bucket);
        trace(path, bucket, DecisionTracer.DENY_LISTED, refusal, false);
        return refusal;
    }

    /** {@link Verdict#denyListed} with the bucket's longest window as its {@code Retry-After}. */
    static Verdict refusal(Bucket bucket) {
        return Verdict.denyListed(bucket.limits().get(bucket.limits().size() - 1).window());
    }

    /**
     * A key on the bucket's allow list that the limits (or a fail-closed outage) refused: let through, as a shadow
     * bucket's refusal is, with {@code remaining} 0 and the refusal's {@code resetAfter} for the headers.
     */
    static Verdict allowListed(DecisionPath path, Bucket bucket, Verdict refusal, boolean fallback) {
        path.metrics().listedDecision(bucket, false);
        // A reserving bucket's allowed verdict says a wait in its reset: an allowed key's call reserved nothing
        Verdict allowed = bucket.reserves() ? Verdict.allowed(refusal.limit(), 0, Duration.ZERO) : letThrough(refusal);
        trace(path, bucket, DecisionTracer.ALLOW_LISTED, allowed, fallback);
        return allowed;
    }

    /** An allowed key's refusal as the verdict it goes on with: {@code ALLOWED}, nothing left, the same reset. */
    static Verdict letThrough(Verdict refusal) {
        return Verdict.allowed(refusal.limit(), 0, refusal.resetAfter());
    }

    /** Tells the trace port of a decision: one comparison when the application does not trace. */
    static void trace(DecisionPath path, Bucket bucket, String outcome, Verdict verdict, boolean fallback) {
        DecisionTracer tracer = path.tracer();
        if (tracer != DecisionTracer.NONE) {
            tracer.decided(bucket, outcome, verdict, fallback);
        }
    }

    /**
     * Starts a traced decision on this thread: the fallback's marks of the one before are forgotten, and it is
     * recorded from now on which buckets the fallback decides. Nothing while the application does not trace.
     */
    static void arm(DecisionPath path) {
        if (path.tracer() != DecisionTracer.NONE) {
            path.assembly().marks().arm();
        }
    }

    /** Whether a block refused the bucket's key since {@link #arm}; false while not tracing. */
    static boolean blocked(DecisionPath path, Bucket bucket) {
        return path.tracer() != DecisionTracer.NONE && path.assembly().marks().blocked(bucket);
    }

    /** Whether the fallback per process decided the bucket since {@link #arm}; false while not tracing. */
    static boolean fellBack(DecisionPath path, Bucket bucket) {
        return path.tracer() != DecisionTracer.NONE && path.assembly().marks().decided(bucket);
    }
}
