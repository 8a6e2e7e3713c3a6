package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics.WaitOutcome;

import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * (Over 400 lines: one table of every series the adapters share, each event a few lines over it; the series' names
 * and descriptions are {@link Series}'.)
 *
 * <p>The counters every adapter keeps, registered once at startup and looked up by bucket (and plan label) on each
 * event, so an event costs two map lookups and an increment. An adapter says how to make a counter, a gauge and a
 * timer in its library.
 *
 * <p>A decision's {@code plan} tag is its bucket's {@link Bucket#plan()}: the labels registered at startup are
 * {@link Bucket#NO_PLAN}, each declared plan and {@link Bucket#EXPLICIT_PLAN} (docs/operations.md#metrics). A label
 * not registered (an application deciding a {@code Bucket} it made under a plan of its own) gets its own series,
 * made on its first event with the same tag names, which the three libraries allow (MicroProfile Metrics asks for
 * one set of tag names per metric, not one set of values); at most {@link #MAX_LATE_PLANS} such labels per bucket,
 * so a plan named after each customer cannot grow the series without bound: past them, decisions under a new label
 * are dropped, with one warning. A bucket not registered is not counted.
 *
 * @param <C> the library's counter type
 */
abstract class CounterTableRecorder<C> implements RateLimiterMetrics {

    /** Plan labels beyond the registered ones that one bucket's decisions may add as series of their own. */
    static final int MAX_LATE_PLANS = 16;

    private static final System.Logger LOG = System.getLogger(CounterTableRecorder.class.getName());

    private final Map<String, BucketSeries> byBucket = new ConcurrentHashMap<>();
    private final Map<String, C> errors = new ConcurrentHashMap<>();
    private volatile C planCacheHits;
    private volatile C planCacheMisses;

    /**
     * A counter of this library, with the series' description and unit.
     *
     * @param series any {@link Series} but {@code DEGRADED} and {@code BACKEND}
     * @param tags   tag names and values, alternating
     */
    abstract C counter(Series series, String... tags);

    /** Adds one. */
    abstract void increment(C counter);

    /** Adds {@code amount}, 0 or more, to the counter. */
    abstract void add(C counter, long amount);

    /**
     * Registers {@link Series#DEGRADED} (1 or 0, read when scraped) and the backend's call timer
     * {@link Series#BACKEND}, with their descriptions and units.
     */
    abstract void registerBackend(String backend, BooleanSupplier degraded);

    /** Registers a gauge of {@code series}, read when scraped, with its description and unit. */
    abstract void gauge(Series series, java.util.function.LongSupplier value, String... tags);

    @Override
    public final void register(Collection<Bucket> buckets, Map<String, Set<String>> plans, String backend,
                               BooleanSupplier degraded) {
        for (Bucket bucket : buckets) {
            byBucket.put(bucket.name(), new BucketSeries(bucket.name(), plans.getOrDefault(bucket.name(), Set.of()),
                    bucket.isConcurrency()));
        }
        errors.put(backend, counter(Series.BACKEND_ERRORS, "backend", backend));
        planCacheHits = counter(Series.PLAN_CACHE, "result", "hit");
        planCacheMisses = counter(Series.PLAN_CACHE, "result", "miss");
        registerBackend(backend, degraded);
    }

    @Override
    public final void decision(Bucket bucket, Verdict.Outcome outcome) {
        PlanSeries plan = plan(bucket);
        if (plan != null) {
            increment(plan.decisions.get(outcome));
        }
    }

    @Override
    public final void shadowDecision(Bucket bucket, Verdict.Outcome wouldBe) {
        PlanSeries plan = plan(bucket);
        if (plan != null) {
            incrementIfRegistered(plan.shadowDecisions.get(wouldBe));
        }
    }

    @Override
    public final void listedDecision(Bucket bucket, boolean denied) {
        PlanSeries plan = plan(bucket);
        if (plan != null) {
            increment(denied ? plan.denyListed : plan.allowListed);
        }
    }

    @Override
    public final void fallback(Bucket bucket) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series != null) {
            increment(series.fallbacks);
        }
    }

    @Override
    public final void failOpen(Bucket bucket) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series != null) {
            increment(series.failOpens);
        }
    }

    @Override
    public final void nearLimit(Bucket bucket) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series != null) {
            increment(series.nearLimits);
        }
    }

    @Override
    public final void cachedDenial(Bucket bucket) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series != null) {
            increment(series.cachedDenials);
        }
    }

    @Override
    public final void refund(Bucket bucket, boolean given) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series != null) {
            increment(given ? series.refundsGiven : series.refundsDropped);
        }
    }

    @Override
    public final void settlement(Bucket bucket, long settled, boolean given) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series != null) {
            increment(given ? series.settled : series.settlementsDropped);
            add(series.settledCost, settled);
        }
    }

    @Override
    public final void permitsInFlight(Bucket bucket, int delta) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series != null && series.inFlight != null) {
            series.inFlight.addAndGet(delta);
        }
    }

    @Override
    public final void expiredLeases(Bucket bucket, long count) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series != null && series.expiredLeases != null) {
            add(series.expiredLeases, count);
        }
    }

    @Override
    public final void registerQuotaLeases(Collection<Bucket> buckets) {
        for (Bucket bucket : buckets) {
            BucketSeries series = byBucket.get(bucket.name());
            if (series != null) {
                series.leases = new LeaseSeries(bucket.name());
            }
        }
    }

    @Override
    public final void quotaLeaseTaken(Bucket bucket, long quota) {
        LeaseSeries leases = leases(bucket);
        if (leases != null) {
            increment(leases.taken);
        }
    }

    @Override
    public final void quotaLeaseReturned(Bucket bucket, long unused) {
        LeaseSeries leases = leases(bucket);
        if (leases != null) {
            increment(leases.returned);
            add(leases.quotaReturned, unused);
        }
    }

    @Override
    public final void localDecision(Bucket bucket) {
        LeaseSeries leases = leases(bucket);
        if (leases != null) {
            increment(leases.local);
        }
    }

    @Override
    public final void registerWaits(Collection<Bucket> buckets) {
        for (Bucket bucket : buckets) {
            BucketSeries series = byBucket.get(bucket.name());
            if (series != null) {
                series.waits = new WaitSeries(bucket.name());
            }
        }
    }

    @Override
    public final void waited(Bucket bucket, WaitOutcome outcome, long millis) {
        BucketSeries series = byBucket.get(bucket.name());
        WaitSeries waits = series == null ? null : series.waits;
        if (waits != null) {
            increment(waits.outcomes.get(outcome));
            if (millis > 0) {
                add(waits.waited, millis);
            }
        }
    }

    @Override
    public final void upstreamHold(Bucket bucket) {
        BucketSeries series = byBucket.get(bucket.name());
        WaitSeries waits = series == null ? null : series.waits;
        if (waits != null) {
            increment(waits.holds);
        }
    }

    /** The bucket's quota lease series; null for a bucket not registered, or without quota leases. */
    private LeaseSeries leases(Bucket bucket) {
        BucketSeries series = byBucket.get(bucket.name());
        return series == null ? null : series.leases;
    }

    @Override
    public final void planMiss(Bucket bucket, PlanMiss reason) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series != null) {
            increment(series.planMisses.get(reason));
        }
    }

    @Override
    public final void planCache(boolean hit) {
        incrementIfRegistered(hit ? planCacheHits : planCacheMisses);
    }

    @Override
    public final void backendError(String backend) {
        incrementIfRegistered(errors.get(backend));
    }

    /** The series of the bucket's plan label; null for a bucket not registered, or a late label past the bound. */
    private PlanSeries plan(Bucket bucket) {
        BucketSeries series = byBucket.get(bucket.name());
        if (series == null) {
            return null;
        }
        String label = bucket.plan();
        // Most decisions are under the bucket's own limits, whose label is the constant itself.
        PlanSeries plan = label == Bucket.NO_PLAN ? series.none : series.plans.get(label);
        return plan != null ? plan : series.late(label);
    }

    private void incrementIfRegistered(C counter) {
        if (counter != null) {
            increment(counter);
        }
    }

    /** A bucket's quota lease series, registered by {@link #registerQuotaLeases}. */
    private final class LeaseSeries {
        final C taken;
        final C returned;
        final C quotaReturned;
        final C local;

        LeaseSeries(String bucket) {
            taken = counter(Series.QUOTA_LEASES, "bucket", bucket, "event", "taken");
            returned = counter(Series.QUOTA_LEASES, "bucket", bucket, "event", "returned");
            quotaReturned = counter(Series.QUOTA_RETURNED, "bucket", bucket);
            local = counter(Series.LOCAL_DECISIONS, "bucket", bucket);
        }
    }

    /** A bucket's series of waiting calls and upstream holds, registered by {@link #registerWaits}. */
    private final class WaitSeries {
        final Map<WaitOutcome, C> outcomes = new EnumMap<>(WaitOutcome.class);
        final C waited;
        final C holds;

        WaitSeries(String bucket) {
            for (WaitOutcome outcome : WaitOutcome.values()) {
                outcomes.put(outcome, counter(Series.WAITS, "bucket", bucket, "outcome", outcome.label()));
            }
            waited = counter(Series.WAITED, "bucket", bucket);
            holds = counter(Series.UPSTREAM_HOLDS, "bucket", bucket);
        }
    }

    /** One bucket's series: decisions by plan label, and its other counts. */
    private final class BucketSeries {
        final String bucket;
        final Map<String, PlanSeries> plans = new ConcurrentHashMap<>();
        final PlanSeries none;
        final C fallbacks;
        final C failOpens;
        final C cachedDenials;
        final C nearLimits;
        final C refundsGiven;
        final C refundsDropped;
        final C settled;
        final C settlementsDropped;
        final C settledCost;
        final java.util.concurrent.atomic.AtomicLong inFlight; // a concurrency bucket's only, as expiredLeases
        final C expiredLeases;
        volatile LeaseSeries leases; // a bucket with quota leases only, registered after the others
        volatile WaitSeries waits; // a bucket with max-wait or upstream-hold-max only, registered after the others
        final Map<PlanMiss, C> planMisses = new EnumMap<>(PlanMiss.class);
        final AtomicInteger late = new AtomicInteger();

        BucketSeries(String bucket, Set<String> declared, boolean concurrency) {
            this.bucket = bucket;
            Set<String> labels = new LinkedHashSet<>();
            labels.add(Bucket.NO_PLAN);
            labels.addAll(declared);
            labels.add(Bucket.EXPLICIT_PLAN);
            for (String label : labels) {
                plans.put(label, new PlanSeries(bucket, label));
            }
            none = plans.get(Bucket.NO_PLAN);
            fallbacks = counter(Series.FALLBACKS, "bucket", bucket);
            failOpens = counter(Series.FAIL_OPEN, "bucket", bucket);
            cachedDenials = counter(Series.CACHED_DENIALS, "bucket", bucket);
            nearLimits = counter(Series.NEAR_LIMIT, "bucket", bucket);
            refundsGiven = counter(Series.REFUNDS, "bucket", bucket, "outcome", "given");
            refundsDropped = counter(Series.REFUNDS, "bucket", bucket, "outcome", "dropped");
            settled = counter(Series.SETTLEMENTS, "bucket", bucket, "outcome", "settled");
            settlementsDropped = counter(Series.SETTLEMENTS, "bucket", bucket, "outcome", "dropped");
            settledCost = counter(Series.SETTLED_COST, "bucket", bucket);
            if (concurrency) {
                inFlight = new java.util.concurrent.atomic.AtomicLong();
                gauge(Series.PERMITS_IN_FLIGHT, inFlight::get, "bucket", bucket);
                expiredLeases = counter(Series.EXPIRED_LEASES, "bucket", bucket);
            } else {
                inFlight = null;
                expiredLeases = null;
            }
            for (PlanMiss reason : PlanMiss.values()) {
                planMisses.put(reason, counter(Series.PLAN_MISSES, "bucket", bucket, "reason", reason.tag()));
            }
        }

        /** The series of a label not registered, made on its first event while the bound allows; else null. */
        PlanSeries late(String label) {
            if (late.get() >= MAX_LATE_PLANS) {
                return null;
            }
            return plans.computeIfAbsent(label, made -> {
                int count = late.incrementAndGet();
                if (count > MAX_LATE_PLANS) {
                    return null; // another thread took the last place meanwhile
                }
                LOG.log(count == MAX_LATE_PLANS ? System.Logger.Level.WARNING : System.Logger.Level.INFO,
                        "Rate limiter metrics: bucket ''" + bucket + "'' decided under plan ''" + made + "'', "
                                + "not declared in ratelimiter.buckets." + bucket + ".plans: counted in a series "
                                + "of its own" + (count == MAX_LATE_PLANS ? "; that was the last of "
                                + MAX_LATE_PLANS + " such plans, decisions under further ones are not counted"
                                : ""));
                return new PlanSeries(bucket, made);
            });
        }
    }

    /**
     * One plan label's decision series of a bucket: by outcome, a shadow bucket's would-be refusals, and the
     * decisions of its allow and deny lists.
     */
    private final class PlanSeries {
        final Map<Verdict.Outcome, C> decisions = new EnumMap<>(Verdict.Outcome.class);
        final Map<Verdict.Outcome, C> shadowDecisions = new EnumMap<>(Verdict.Outcome.class);
        final C allowListed;
        final C denyListed;

        PlanSeries(String bucket, String plan) {
            // Every bucket, listed or not, as the shadow series: a dashboard's query reads 0 rather than nothing.
            allowListed = counter(Series.DECISIONS, "bucket", bucket, "plan", plan, "outcome", "allow_listed");
            denyListed = counter(Series.DECISIONS, "bucket", bucket, "plan", plan, "outcome", "deny_listed");
            for (Verdict.Outcome outcome : Verdict.Outcome.values()) {
                String label = outcome.name().toLowerCase(Locale.ROOT);
                decisions.put(outcome, counter(Series.DECISIONS, "bucket", bucket, "plan", plan, "outcome", label));
                if (outcome != Verdict.Outcome.ALLOWED) {
                    // Every bucket, shadow or not, so a dashboard's query reads 0 rather than nothing.
                    shadowDecisions.put(outcome, counter(Series.DECISIONS, "bucket", bucket, "plan", plan,
                            "outcome", "shadow_" + label));
                }
            }
        }
    }
}
