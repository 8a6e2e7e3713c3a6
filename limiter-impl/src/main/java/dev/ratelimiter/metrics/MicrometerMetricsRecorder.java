package dev.ratelimiter.metrics;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.RateLimiterMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Reports to Micrometer, as Quarkus offers it. Meter names use Micrometer's dots ({@code rate_limiter.fallbacks});
 * its Prometheus registry exports them as the same series as MicroProfile Metrics, without {@code mp_scope}.
 */
final class MicrometerMetricsRecorder implements RateLimiterMetrics {

    private final MeterRegistry registry;
    private final Map<String, Map<Verdict.Outcome, Counter>> decisions = new ConcurrentHashMap<>();
    private final Map<String, Counter> fallbacks = new ConcurrentHashMap<>();
    private final Map<String, Counter> failOpens = new ConcurrentHashMap<>();
    private final Map<Backend, Counter> errors = new ConcurrentHashMap<>();
    private final Map<Backend, Timer> timers = new ConcurrentHashMap<>();

    MicrometerMetricsRecorder(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void register(Collection<Bucket> buckets, Backend backend, BooleanSupplier degraded) {
        for (Bucket bucket : buckets) {
            Map<Verdict.Outcome, Counter> byOutcome = new EnumMap<>(Verdict.Outcome.class);
            for (Verdict.Outcome outcome : Verdict.Outcome.values()) {
                byOutcome.put(outcome, Counter.builder("rate_limiter.decisions").tag("bucket", bucket.name())
                        .tag("outcome", outcome.name().toLowerCase(Locale.ROOT)).register(registry));
            }
            decisions.put(bucket.name(), byOutcome);
            fallbacks.put(bucket.name(),
                    Counter.builder("rate_limiter.fallbacks").tag("bucket", bucket.name()).register(registry));
            failOpens.put(bucket.name(),
                    Counter.builder("rate_limiter.fail_open").tag("bucket", bucket.name()).register(registry));
        }
        String name = backend.configName();
        errors.put(backend, Counter.builder("rate_limiter.backend_errors").tag("backend", name).register(registry));
        // strongReference: Micrometer holds a gauge's object weakly, and nothing else holds this lambda, so it
        // would be collected and the gauge would read NaN.
        Gauge.builder("rate_limiter.degraded", degraded, d -> d.getAsBoolean() ? 1 : 0).tag("backend", name)
                .strongReference(true).register(registry);
        timers.put(backend, Timer.builder("rate_limiter.backend").tag("backend", name).register(registry));
    }

    @Override
    public void decision(Bucket bucket, Verdict.Outcome outcome) {
        Map<Verdict.Outcome, Counter> byOutcome = decisions.get(bucket.name());
        if (byOutcome != null) {
            byOutcome.get(outcome).increment();
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
            counter.increment();
        }
    }

    @Override
    public void backendCall(Backend backend, long nanos) {
        Timer timer = timers.get(backend);
        if (timer != null) {
            timer.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    private static void increment(Map<String, Counter> counters, String bucketName) {
        Counter counter = counters.get(bucketName);
        if (counter != null) {
            counter.increment();
        }
    }
}
