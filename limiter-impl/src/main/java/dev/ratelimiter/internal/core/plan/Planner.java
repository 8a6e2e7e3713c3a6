package dev.ratelimiter.internal.core.plan;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitPlan;
import dev.ratelimiter.RateLimitPlanResolver;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics.PlanMiss;
import dev.ratelimiter.internal.core.settings.PlanCacheSettings;

import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Chooses one bucket's limits for each call from what its {@link RateLimitPlanResolver} answers (docs/plans.md): a
 * declared plan, explicit limits, or, for anything else, the bucket's own. One planner per bucket and resolver, made
 * once; the answer per key is cached ({@link PlanCache}) as the bucket it chose, so a cached call costs one map read.
 *
 * <p>A resolver that throws, or answers limits that do not fit, never fails the call: it gets the bucket's own limits,
 * is counted ({@link RateLimiterMetrics#planMiss}) and logged at most once a minute, without the key (it may be a
 * customer's). A failure is not cached: the next call asks again.
 */
public final class Planner {

    private static final System.Logger LOG = System.getLogger(Planner.class.getName());
    private static final long LOG_EVERY_MILLIS = 60_000;

    /**
     * What a resolver's answer chose.
     *
     * @param bucket the bucket under the chosen limits; the bucket's own for a miss
     * @param miss   why the bucket's own limits apply; {@code null} when a plan does
     */
    private record Choice(Bucket bucket, PlanMiss miss) {
    }

    private final Bucket bucket;
    private final Map<String, Bucket> plans;
    private final RateLimitPlanResolver resolver;
    private final String resolverLabel;
    private final PlanCache<Choice> cache;
    private final InstantSource clock;
    private final Choice noPlan;
    private final Choice undeclared;
    private final AtomicLong nextLog = new AtomicLong(Long.MIN_VALUE);

    /**
     * @param bucket        the bucket under its own limits
     * @param plans         its declared plans' buckets by plan name ({@code BucketPlans.plans()})
     * @param resolver      the resolver bean
     * @param resolverLabel the resolver's bean class name, for the log
     * @param cache         how long answers are kept; a zero ttl keeps none
     * @param clock         the library's clock
     */
    public Planner(Bucket bucket, Map<String, Bucket> plans, RateLimitPlanResolver resolver, String resolverLabel,
                   PlanCacheSettings cache, InstantSource clock) {
        this.bucket = bucket;
        this.plans = Map.copyOf(plans);
        this.resolver = resolver;
        this.resolverLabel = resolverLabel;
        this.cache = cache.ttl().isZero() ? null : new PlanCache<>(cache.ttl().toMillis(), cache.maxEntries(), clock);
        this.clock = clock;
        this.noPlan = new Choice(bucket, PlanMiss.NONE);
        this.undeclared = new Choice(bucket, PlanMiss.UNDECLARED);
    }

    /** {@return the bucket under its own limits} */
    public Bucket bucket() {
        return bucket;
    }

    /**
     * The limits of a call from the cache, without asking the resolver.
     *
     * @param namespace where the key comes from
     * @param key       the call's key, normalized, before hashing
     * @param cost      the call's cost: explicit limits it exceeds give the bucket's own
     * @param metrics   counts the look-up, and a miss
     * @return the bucket under the call's limits, or {@code null} when no answer is cached: then call
     *         {@link #resolve}
     */
    public Bucket cached(KeyNamespace namespace, String key, long cost, RateLimiterMetrics metrics) {
        if (cache == null) {
            return null;
        }
        Choice choice = cache.get(namespace, key);
        metrics.planCache(choice != null);
        return choice == null ? null : apply(choice, cost, metrics);
    }

    /**
     * The limits of a call, asking the resolver, and keeping its answer for the key.
     *
     * @param namespace where the key comes from
     * @param key       the call's key, normalized, before hashing; given to the resolver
     * @param context   the call, for the resolver
     * @param cost      the call's cost: explicit limits it exceeds give the bucket's own
     * @param metrics   counts a miss
     * @return the bucket under the call's limits; never throws for what the resolver does
     */
    public Bucket resolve(KeyNamespace namespace, String key, RateLimitContext context, long cost,
                          RateLimiterMetrics metrics) {
        Choice choice;
        try {
            choice = choose(resolver.resolve(key, context));
        } catch (RuntimeException e) {
            report("threw " + e.getClass().getName() + " (its message is not logged: it may hold the key)");
            metrics.planMiss(bucket, PlanMiss.ERROR);
            return bucket;
        }
        if (cache != null) {
            cache.put(namespace, key, choice);
        }
        return apply(choice, cost, metrics);
    }

    private Choice choose(RateLimitPlan answer) {
        if (answer == null) {
            return noPlan;
        }
        if (!answer.explicit()) {
            Bucket plan = plans.get(answer.name());
            return plan != null ? new Choice(inZone(plan, answer), null) : undeclared;
        }
        try {
            return new Choice(inZone(answer.applyTo(bucket).orElseThrow(), answer), null);
        } catch (IllegalArgumentException e) {
            report("answered " + answer + ", which does not fit: " + e.getMessage());
            return new Choice(bucket, PlanMiss.UNFIT);
        }
    }

    /** The plan's bucket in the customer's zone, when the answer gives one (made once per answer: it is cached). */
    private static Bucket inZone(Bucket planned, RateLimitPlan answer) {
        return answer.zone().map(planned::withZone).orElse(planned);
    }

    private Bucket apply(Choice choice, long cost, RateLimiterMetrics metrics) {
        if (choice.miss != null) {
            metrics.planMiss(bucket, choice.miss);
            return bucket;
        }
        if (cost > choice.bucket.largestCost()) {
            report("answered limits of at most " + choice.bucket.largestCost() + " per call, below a call's cost of "
                    + cost);
            metrics.planMiss(bucket, PlanMiss.UNFIT);
            return bucket;
        }
        return choice.bucket;
    }

    /** Logs a failure of the resolver for this bucket at most once a minute. */
    private void report(String what) {
        long now = clock.millis();
        long next = nextLog.get();
        if (now >= next && nextLog.compareAndSet(next, now + LOG_EVERY_MILLIS)) {
            LOG.log(System.Logger.Level.WARNING, "RateLimitPlanResolver " + resolverLabel + " " + what
                    + " for bucket \"" + bucket.name() + "\": such a call gets the bucket's own limits "
                    + "(docs/plans.md#when-there-is-no-plan). Logged at most once a minute.");
        }
    }
}
