package dev.ratelimiter.internal.cdi.call;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitPlanResolver;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethod;
import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.key.KeyNormalizer;
import dev.ratelimiter.internal.core.plan.Planner;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the {@link RateLimitPlanResolver} a bucket's calls ask (docs/plans.md): the one {@code @RateLimited} names
 * ({@code planResolver}, {@code planResolverName}), else the bucket's {@code ratelimiter.buckets.<name>.plan-resolver}
 * (the global filter's buckets' only way), and makes one {@link Planner} per bucket and resolver, whose plan cache
 * every method of that bucket and resolver shares.
 *
 * <p>The injected {@code @Any Instance<RateLimitPlanResolver>} also keeps Quarkus ArC from removing a resolver bean
 * that nothing else injects.
 */
@ApplicationScoped
public class PlanResolvers {

    @Inject
    @Any
    Instance<RateLimitPlanResolver> resolvers;

    @Inject
    LimiterConfiguration configuration;

    @Inject
    LimiterRuntime runtime;

    // bucket name, then resolver bean class name
    private final Map<String, Map<String, Planner>> planners = new ConcurrentHashMap<>();
    // bucket name: the planner of its plan-resolver property, or none
    private final Map<String, Optional<Planner>> byBucket = new ConcurrentHashMap<>();

    /**
     * The planner of a bucket: its resolver is the one {@code named} designates, else the bucket's
     * {@code plan-resolver} property's.
     *
     * @param bucket the configured bucket, under its own limits
     * @param named  the resolver an annotation names; {@code null} for none
     * @return empty when neither names a resolver: the bucket's own limits always apply
     * @throws IllegalArgumentException naming the attribute or the property, if it designates no bean or several
     */
    public Optional<Planner> planner(Bucket bucket, RateLimitedMethod.PlanResolverName named) {
        if (named == null) {
            // The global filter asks on every request: the property's answer is found once
            Optional<Planner> configured = byBucket.get(bucket.name());
            return configured != null ? configured : byBucket.computeIfAbsent(bucket.name(), name ->
                    configuration.settings().plans(name).resolver().map(value -> planner(bucket,
                            byProperty(name, value))));
        }
        return Optional.of(planner(bucket, named.type() != null
                ? only(resolvers.select(named.type()), named.describe())
                : only(resolvers.select(NamedLiteral.of(named.name())), named.describe())));
    }

    /**
     * Forgets the planners of these buckets, and their cached answers, so the next call makes them anew from the
     * buckets' settings: after a reload changed them (docs/live-limits.md).
     */
    public void forget(java.util.Collection<String> buckets) {
        for (String bucket : buckets) {
            planners.remove(bucket);
            byBucket.remove(bucket);
        }
    }

    private Planner planner(Bucket bucket, NamedBeans.Found<RateLimitPlanResolver> resolved) {
        LimiterSettings settings = configuration.settings();
        return planners.computeIfAbsent(bucket.name(), name -> new ConcurrentHashMap<>())
                .computeIfAbsent(resolved.label(), label -> new Planner(bucket,
                        settings.plans(bucket.name()).plans(), resolved.bean(), label, settings.planCache(),
                        runtime.clock()));
    }

    /**
     * The limits of one call from the plan cache, without asking the resolver.
     *
     * @param planner the bucket's planner
     * @param key     the call's key, as resolved
     * @param cost    the call's cost
     * @return the bucket under the call's limits, or {@code null} when the key's answer is not cached: then
     *         {@link #resolve}
     */
    public Bucket cached(Planner planner, RawKey key, long cost) {
        return planner.cached(key.namespace(), KeyNormalizer.normalize(key.raw(), key.normalization()), cost,
                runtime.path().metrics());
    }

    /**
     * The limits of one call, asking the resolver (and caching its answer).
     *
     * @param planner the bucket's planner
     * @param key     the call's key, as resolved
     * @param cost    the call's cost
     * @param context the call, for the resolver
     * @return the bucket under the call's limits; never throws for what the resolver does
     */
    public Bucket resolve(Planner planner, RawKey key, long cost, RateLimitContext context) {
        return planner.resolve(key.namespace(), KeyNormalizer.normalize(key.raw(), key.normalization()), context,
                cost, runtime.path().metrics());
    }

    private NamedBeans.Found<RateLimitPlanResolver> byProperty(String bucket, String value) {
        return NamedBeans.byNameOrClass(resolvers, RateLimitPlanResolver.class, value,
                "ratelimiter.buckets." + bucket + ".plan-resolver='" + value + "'");
    }

    private static NamedBeans.Found<RateLimitPlanResolver> only(Instance<? extends RateLimitPlanResolver> matching,
                                                                String what) {
        return NamedBeans.only(matching, RateLimitPlanResolver.class, what);
    }

}
