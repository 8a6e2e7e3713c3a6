package dev.ratelimiter.metrics;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.RateLimiterMetrics;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

import java.time.Duration;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Reports to MicroProfile Metrics 5 (application scope), as Payara and Open Liberty offer it. Exported by the
 * server with {@code mp_scope="application"}: {@code rate_limiter_decisions_total{bucket,outcome}},
 * {@code rate_limiter_fallbacks_total{bucket}}, {@code rate_limiter_fail_open_total{bucket}},
 * {@code rate_limiter_backend_errors_total{backend}}, {@code rate_limiter_degraded{backend}} and the timer
 * {@code rate_limiter_backend_seconds{backend}}. Counters are looked up once, at registration.
 */
final class MicroProfileMetricsRecorder implements RateLimiterMetrics {

    private final MetricRegistry registry;
    private final Map<String, Map<Verdict.Outcome, Counter>> decisions = new ConcurrentHashMap<>();
    private final Map<String, Counter> fallbacks = new ConcurrentHashMap<>();
    private final Map<String, Counter> failOpens = new ConcurrentHashMap<>();
    private final Map<Backend, Counter> errors = new ConcurrentHashMap<>();

    MicroProfileMetricsRecorder(MetricRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void register(Collection<Bucket> buckets, Backend backend, BooleanSupplier degraded) {
        for (Bucket bucket : buckets) {
            Tag tag = new Tag("bucket", bucket.name());
            Map<Verdict.Outcome, Counter> byOutcome = new EnumMap<>(Verdict.Outcome.class);
            for (Verdict.Outcome outcome : Verdict.Outcome.values()) {
                byOutcome.put(outcome, registry.counter("rate_limiter_decisions", tag,
                        new Tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))));
            }
            decisions.put(bucket.name(), byOutcome);
            fallbacks.put(bucket.name(), registry.counter("rate_limiter_fallbacks", tag));
            failOpens.put(bucket.name(), registry.counter("rate_limiter_fail_open", tag));
        }
        Tag backendTag = new Tag("backend", backend.configName());
        errors.put(backend, registry.counter("rate_limiter_backend_errors", backendTag));
        registry.gauge("rate_limiter_degraded", degraded, d -> d.getAsBoolean() ? 1 : 0, backendTag);
        registry.timer("rate_limiter_backend", backendTag);
    }

    @Override
    public void decision(Bucket bucket, Verdict.Outcome outcome) {
        Map<Verdict.Outcome, Counter> byOutcome = decisions.get(bucket.name());
        if (byOutcome != null) {
            byOutcome.get(outcome).inc();
        }
    }

    @Override
    public void fallback(Bucket bucket) {
        increment(fallbacks, bucket.name());
    }

    @Override
    public void failOpen(Bucket bucket) {
        increment(failOpens, bucket.name());
    }

    @Override
    public void backendError(Backend backend) {
        Counter counter = errors.get(backend);
        if (counter != null) {
            counter.inc();
        }
    }

    @Override
    public void backendCall(Backend backend, long nanos) {
        registry.timer("rate_limiter_backend", new Tag("backend", backend.configName())).update(Duration.ofNanos(nanos));
    }

    private static void increment(Map<String, Counter> counters, String bucketName) {
        Counter counter = counters.get(bucketName);
        if (counter != null) {
            counter.inc();
        }
    }
}
