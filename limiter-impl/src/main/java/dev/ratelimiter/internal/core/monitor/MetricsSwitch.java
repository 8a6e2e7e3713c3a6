package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The metrics port the limiter chain holds from the start, forwarding to the adapter once the application has
 * started (in a server, the CDI layer's one metrics step connects it). It forwards every event of the port: one it
 * did not would be lost in a server, whatever the adapter records (MetricsSwitchTest checks each is overridden). The adapter is connected at the CDI {@code Startup} event rather than when the chain is built, because
 * the chain may be built earlier, on a request thread (a readiness probe during deployment), where Payara cannot
 * yet resolve its {@code MetricRegistry}. Events before then are not reported.
 */
public final class MetricsSwitch implements RateLimiterMetrics {

    private volatile RateLimiterMetrics target = RateLimiterMetrics.NONE;

    /** Starts forwarding to {@code metrics}. */
    public void connect(RateLimiterMetrics metrics) {
        this.target = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public void register(Collection<Bucket> buckets, Map<String, Set<String>> plans, String backend,
                         BooleanSupplier degraded) {
        target.register(buckets, plans, backend, degraded);
    }

    @Override
    public void registerQuotaLeases(Collection<Bucket> buckets) {
        target.registerQuotaLeases(buckets);
    }

    @Override
    public void registerWaits(Collection<Bucket> buckets) {
        target.registerWaits(buckets);
    }

    @Override
    public void waited(Bucket bucket, WaitOutcome outcome, long millis) {
        target.waited(bucket, outcome, millis);
    }

    @Override
    public void upstreamHold(Bucket bucket) {
        target.upstreamHold(bucket);
    }

    @Override
    public void quotaLeaseTaken(Bucket bucket, long quota) {
        target.quotaLeaseTaken(bucket, quota);
    }

    @Override
    public void quotaLeaseReturned(Bucket bucket, long unused) {
        target.quotaLeaseReturned(bucket, unused);
    }

    @Override
    public void localDecision(Bucket bucket) {
        target.localDecision(bucket);
    }

    @Override
    public void rejectedSettings(java.util.function.IntSupplier count) {
        target.rejectedSettings(count);
    }

    @Override
    public void decision(Bucket bucket, Verdict.Outcome outcome) {
        target.decision(bucket, outcome);
    }

    @Override
    public void shadowDecision(Bucket bucket, Verdict.Outcome wouldBe) {
        target.shadowDecision(bucket, wouldBe);
    }

    @Override
    public void listedDecision(Bucket bucket, boolean denied) {
        target.listedDecision(bucket, denied);
    }

    @Override
    public void backendCall(String backend, long nanos) {
        target.backendCall(backend, nanos);
    }

    @Override
    public void cachedDenial(Bucket bucket) {
        target.cachedDenial(bucket);
    }

    @Override
    public void nearLimit(Bucket bucket) {
        target.nearLimit(bucket);
    }

    @Override
    public void backendError(String backend) {
        target.backendError(backend);
    }

    @Override
    public void fallback(Bucket bucket) {
        target.fallback(bucket);
    }

    @Override
    public void failOpen(Bucket bucket) {
        target.failOpen(bucket);
    }

    @Override
    public void failClosed(Bucket bucket) {
        target.failClosed(bucket);
    }

    @Override
    public void refund(Bucket bucket, boolean given) {
        target.refund(bucket, given);
    }

    @Override
    public void settlement(Bucket bucket, long settled, boolean given) {
        target.settlement(bucket, settled, given);
    }

    @Override
    public void permitsInFlight(Bucket bucket, int delta) {
        target.permitsInFlight(bucket, delta);
    }

    @Override
    public void expiredLeases(Bucket bucket, long count) {
        target.expiredLeases(bucket, count);
    }

    @Override
    public void planMiss(Bucket bucket, PlanMiss reason) {
        target.planMiss(bucket, reason);
    }

    @Override
    public void planCache(boolean hit) {
        target.planCache(hit);
    }

    /** Stops forwarding (later events are dropped), then closes the adapter. */
    @Override
    public void close() {
        RateLimiterMetrics closing = target;
        target = RateLimiterMetrics.NONE;
        closing.close();
    }
}
