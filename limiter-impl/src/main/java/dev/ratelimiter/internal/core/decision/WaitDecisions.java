package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.BlockLimiter;
import dev.ratelimiter.internal.core.key.KeyNormalizer;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics.WaitOutcome;

import java.time.Duration;

/**
 * What the waits of {@code @RateLimited} calls and their upstream's holds ask of the decision path
 * (docs/guide.md#waiting-instead-of-refusing, docs/guide.md#holds-from-the-upstream): a reservation given back when
 * its caller will not wait after all, the metrics of a wait, and a hold set on a key. Keys are raw, as the decision
 * path takes them: each is normalized and hashed as its decision was. Plain Java; thread-safe.
 */
public final class WaitDecisions {

    private final DecisionSource source;

    WaitDecisions(DecisionSource source) {
        this.source = source;
    }

    /**
     * Gives a reservation back that its caller will not wait for after all (its wait ends past its deadline), and
     * answers the refusal it becomes (docs/guide.md#waiting-instead-of-refusing); never throws for a store failure.
     *
     * @param bucket  the bucket, as decided
     * @param key     the call's raw key, as decided
     * @param cost    the call's cost
     * @param verdict the reservation
     * @return a refusal, its wait as {@code resetAfter}; the verdict itself if it was no reservation
     */
    public Verdict unreserve(Bucket bucket, RawKey key, long cost, Verdict verdict) {
        DecisionPath path = source.path();
        String counterKey = counterKey(path, key);
        return Settlements.unreserved(path, bucket, counterKey, cost, verdict);
    }

    /**
     * Counts how a call's wait for its bucket ended (docs/guide.md#waiting-instead-of-refusing).
     *
     * @param bucket  the bucket the call waited for
     * @param outcome how its wait ended
     * @param millis  how long it waited, milliseconds
     */
    public void waited(Bucket bucket, WaitOutcome outcome,
                       long millis) {
        source.path().metrics().waited(bucket, outcome, millis);
    }

    /**
     * Holds a key of a bucket with {@code upstream-hold-max} for its upstream (docs/guide.md#holds-from-the-upstream):
     * every replica refuses, or makes wait, the key's calls until the upstream's {@code Retry-After}; counted in the
     * metrics when set. Never throws for a store failure.
     *
     * @param bucket     the bucket whose call the upstream answered 429 or 503
     * @param key        the call's raw key, as it was decided
     * @param retryAfter the upstream's {@code Retry-After}, from now
     * @return whether the key is held
     */
    public boolean hold(Bucket bucket, RawKey key, Duration retryAfter) {
        DecisionPath path = source.path();
        if (!(path.assembly().limiter() instanceof BlockLimiter blocks)) {
            return false;
        }
        String counterKey = counterKey(path, key);
        boolean held = blocks.hold(bucket, counterKey, retryAfter);
        if (held) {
            path.metrics().upstreamHold(bucket);
        }
        return held;
    }

    /** The key a decision of {@code key} was counted under. */
    private static String counterKey(DecisionPath path, RawKey key) {
        return path.assembly().keys().counterKey(key.namespace(),
                KeyNormalizer.normalize(key.raw(), key.normalization()));
    }
}
