package dev.ratelimiter;

/**
 * Chooses the limits of a call at request time (docs/plans.md): the plan of a tenant or principal (free, pro), or a
 * customer's own limits read from the application's database. Implement it as a CDI bean (usually
 * {@code @ApplicationScoped}; {@code @Named} to name it by {@link RateLimited#planResolverName()} or
 * {@code ratelimiter.buckets.<bucket>.plan-resolver}, the way the global filter's buckets take one).
 *
 * <p>When it runs: after the call's key is known, before the bucket counts, on the calling thread (the global
 * filter's: after authentication). Its answer is cached per bucket and key for {@code ratelimiter.plans.cache-ttl}
 * (a minute by default; {@code PT0S} asks on every call), so a plan read from a database costs one query per key and
 * minute, not one per call; a key's new plan applies within that time.
 *
 * <p>{@code null}, or a plan the bucket does not declare, gets the bucket's own limits, as does an exception (logged
 * at most once a minute per resolver, never a 500) or explicit limits that do not fit the bucket's windows; each is
 * counted in {@code rate_limiter_plan_misses_total}. Never take the plan from something the client sends unchecked
 * (a header, a query parameter): that lets the client choose its own limit.
 */
public interface RateLimitPlanResolver {

    /**
     * The plan of this call.
     *
     * @param key     the key the bucket counts this call under, as resolved and normalized (a tenant, a principal
     *                name, a client address), before hashing
     * @param context the call: bucket, method and arguments, principal, client address, request headers and parameters
     * @return a declared plan ({@link RateLimitPlan#named}), explicit limits ({@link RateLimitPlan#limit},
     *         {@link RateLimitPlan#limits}), or {@code null} for the bucket's own limits
     */
    RateLimitPlan resolve(String key, RateLimitContext context);
}
