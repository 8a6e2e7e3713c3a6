package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.RateLimitNearLimit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.ShadowMode;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.monitor.DecisionTracer;
import dev.ratelimiter.internal.core.settings.LimiterSettings;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What follows a decision's verdict from the chain, for {@link RateLimitDecider}: shadow mode, the metrics and the
 * trace, the denial event, and the near-limit count and event (docs/guide.md#near-the-limit). Safe for concurrent
 * use.
 */
final class DecisionOutcomes {

    private final Supplier<LimiterSettings> settings;
    private final Consumer<RateLimitDenied> denials;
    private final Consumer<RateLimitNearLimit> nearLimits;
    // ratelimiter.near-limit.percent, read at the first allowed decision: it applies at startup only (a reload changes
    // buckets), and a field spares each decision a call through the configuration's client proxy. -1: not read yet;
    // a race reads the same value twice.
    private int nearLimitPercent = -1;

    /**
     * @param settings   the settings in force: the near-limit share
     * @param denials    told of each denial, on the deciding thread
     * @param nearLimits told of each call that takes a key below the near-limit share of a window
     */
    DecisionOutcomes(Supplier<LimiterSettings> settings, Consumer<RateLimitDenied> denials,
                     Consumer<RateLimitNearLimit> nearLimits) {
        this.settings = settings;
        this.denials = denials;
        this.nearLimits = nearLimits;
    }

    /**
     * What {@code RateLimitDecider.decide} does with the chain's verdict: shadow mode, the metrics, the denial event, the near-limit
     * count and event.
     *
     * @param watched whether the call is near-limit material: not for a bucket that counts failures only, whose calls
     *                are counted before their outcome is known and given back when they succeed
     * @param fallback whether the fallback per process made the decision, for the trace
     */
    Verdict report(DecisionPath path, Bucket bucket, KeyNamespace namespace, String normalized,
                    String key, long cost, boolean watched, Verdict verdict, boolean fallback) {
        ShadowMode shadow = path.assembly().shadow();
        if (verdict.outcome() != Verdict.Outcome.ALLOWED && shadow.covers(bucket)) {
            Verdict letThrough = shadow.letThrough(bucket, key, verdict);
            DecisionReports.trace(path, bucket, DecisionTracer.SHADOW_REFUSED, letThrough, fallback);
            return letThrough;
        }
        path.metrics().decision(bucket, verdict.outcome());
        DecisionReports.trace(path, bucket, switch (verdict.outcome()) {
            case ALLOWED -> DecisionTracer.ALLOWED;
            case DENIED -> DecisionReports.blocked(path, bucket) ? DecisionTracer.BLOCKED : DecisionTracer.REFUSED;
            case UNAVAILABLE -> DecisionTracer.UNAVAILABLE;
        }, verdict, fallback);
        if (verdict.outcome() == Verdict.Outcome.DENIED) {
            denials.accept(new RateLimitDenied(bucket, path.assembly().keys().eventKey(namespace, normalized, key),
                    verdict));
        } else if (watched) {
            int percent = nearLimitPercent;
            if (percent < 0) {
                percent = settings.get().nearLimitPercent();
                nearLimitPercent = percent;
            }
            if (NearLimit.near(bucket, verdict, percent)) {
                nearLimit(path, bucket, namespace, normalized, key, cost, verdict, percent);
            }
        }
        return verdict;
    }

    /**
     * Counts a call that left a window below the near-limit share, and tells of each window it took there; a bucket
     * in shadow mode is counted and tells nothing (as it fires no denial: its limit is not enforced yet).
     */
    private void nearLimit(DecisionPath path, Bucket bucket, KeyNamespace namespace, String normalized, String key,
                           long cost, Verdict verdict, int percent) {
        path.metrics().nearLimit(bucket);
        if (path.assembly().shadow().covers(bucket)) {
            return;
        }
        String eventKey = null;
        for (int window = 0; window < NearLimit.windows(verdict); window++) {
            if (NearLimit.crossed(bucket, verdict, window, cost, percent)) {
                if (eventKey == null) {
                    eventKey = path.assembly().keys().eventKey(namespace, normalized, key);
                }
                nearLimits.accept(new RateLimitNearLimit(bucket, eventKey, bucket.limits().get(window),
                        NearLimit.capacity(bucket, window), NearLimit.remaining(verdict, window), verdict));
            }
        }
    }
}
