package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * The counters both adapters keep, registered once at startup and looked up by bucket on each event, so an event
 * costs a map lookup and an increment. An adapter says how to make a counter, a gauge and a timer in its library.
 *
 * @param <C> the library's counter type
 */
abstract class CounterTableRecorder<C> implements RateLimiterMetrics {

    private final Map<String, Map<Verdict.Outcome, C>> decisions = new ConcurrentHashMap<>();
    private final Map<String, Map<Verdict.Outcome, C>> shadowDecisions = new ConcurrentHashMap<>();
    private final Map<String, C> fallbacks = new ConcurrentHashMap<>();
    private final Map<String, C> failOpens = new ConcurrentHashMap<>();
    private final Map<String, C> cachedDenials = new ConcurrentHashMap<>();
    private final Map<String, C> errors = new ConcurrentHashMap<>();
    private final Map<String, C> refundsGiven = new ConcurrentHashMap<>();
    private final Map<String, C> refundsDropped = new ConcurrentHashMap<>();

    /**
     * A counter of this library, with the series' description and unit.
     *
     * @param series {@code DECISIONS}, {@code FALLBACKS}, {@code FAIL_OPEN}, {@code CACHED_DENIALS},
     *               {@code REFUNDS} or {@code BACKEND_ERRORS}
     * @param tags   tag names and values, alternating
     */
    abstract C counter(Series series, String... tags);

    /** Adds one. */
    abstract void increment(C counter);

    /**
     * Registers {@link Series#DEGRADED} (1 or 0, read when scraped) and the backend's call timer
     * {@link Series#BACKEND}, with their descriptions and units.
     */
    abstract void registerBackend(String backend, BooleanSupplier degraded);

    @Override
    public final void register(Collection<Bucket> buckets, String backend, BooleanSupplier degraded) {
        for (Bucket bucket : buckets) {
            Map<Verdict.Outcome, C> byOutcome = new EnumMap<>(Verdict.Outcome.class);
            Map<Verdict.Outcome, C> shadowByOutcome = new EnumMap<>(Verdict.Outcome.class);
            for (Verdict.Outcome outcome : Verdict.Outcome.values()) {
                String label = outcome.name().toLowerCase(Locale.ROOT);
                byOutcome.put(outcome, counter(Series.DECISIONS, "bucket", bucket.name(), "outcome", label));
                if (outcome != Verdict.Outcome.ALLOWED) {
                    // Every bucket, shadow or not, so a dashboard's query reads 0 rather than nothing.
                    shadowByOutcome.put(outcome, counter(Series.DECISIONS, "bucket", bucket.name(),
                            "outcome", "shadow_" + label));
                }
            }
            decisions.put(bucket.name(), byOutcome);
            shadowDecisions.put(bucket.name(), shadowByOutcome);
            fallbacks.put(bucket.name(), counter(Series.FALLBACKS, "bucket", bucket.name()));
            failOpens.put(bucket.name(), counter(Series.FAIL_OPEN, "bucket", bucket.name()));
            cachedDenials.put(bucket.name(), counter(Series.CACHED_DENIALS, "bucket", bucket.name()));
            refundsGiven.put(bucket.name(), counter(Series.REFUNDS, "bucket", bucket.name(), "outcome", "given"));
            refundsDropped.put(bucket.name(), counter(Series.REFUNDS, "bucket", bucket.name(), "outcome", "dropped"));
        }
        errors.put(backend, counter(Series.BACKEND_ERRORS, "backend", backend));
        registerBackend(backend, degraded);
    }

    @Override
    public final void decision(Bucket bucket, Verdict.Outcome outcome) {
        Map<Verdict.Outcome, C> byOutcome = decisions.get(bucket.name());
        if (byOutcome != null) {
            increment(byOutcome.get(outcome));
        }
    }

    @Override
    public final void shadowDecision(Bucket bucket, Verdict.Outcome wouldBe) {
        Map<Verdict.Outcome, C> byOutcome = shadowDecisions.get(bucket.name());
        if (byOutcome != null) {
            incrementIfRegistered(byOutcome.get(wouldBe));
        }
    }

    @Override
    public final void fallback(Bucket bucket) {
        incrementIfRegistered(fallbacks.get(bucket.name()));
    }

    @Override
    public final void failOpen(Bucket bucket) {
        incrementIfRegistered(failOpens.get(bucket.name()));
    }

    @Override
    public final void cachedDenial(Bucket bucket) {
        incrementIfRegistered(cachedDenials.get(bucket.name()));
    }

    @Override
    public final void refund(Bucket bucket, boolean given) {
        incrementIfRegistered((given ? refundsGiven : refundsDropped).get(bucket.name()));
    }

    @Override
    public final void backendError(String backend) {
        incrementIfRegistered(errors.get(backend));
    }

    private void incrementIfRegistered(C counter) {
        if (counter != null) {
            increment(counter);
        }
    }
}
