package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitPlan;
import dev.ratelimiter.RateLimitPlanResolver;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;

/**
 * The plan of a {@code tiered} call, by the tenant's prefix, so that each scenario can use tenants of its own: a
 * tenant {@code pro-...} on the declared plan {@code pro}; {@code contract-...} with explicit limits of
 * {@link #CONTRACT_LIMIT}; {@code gold-...} on a plan the bucket does not declare; {@code broken-...} makes the
 * resolver throw; any other on no plan. Named by the bucket's configuration, not by the annotation.
 */
@ApplicationScoped
@Named(TierResolver.NAME)
public class TierResolver implements RateLimitPlanResolver {

    /** The bean's name, as {@code ratelimiter.buckets.tiered.plan-resolver} gives it. */
    public static final String NAME = "tier-by-tenant";

    /** The attempts per window of a {@code contract-...} tenant. */
    public static final long CONTRACT_LIMIT = 4;

    @Override
    public RateLimitPlan resolve(String key, RateLimitContext context) {
        if (key.startsWith("pro-")) {
            return RateLimitPlan.named("pro");
        }
        if (key.startsWith("contract-")) {
            return RateLimitPlan.limit(CONTRACT_LIMIT);
        }
        if (key.startsWith("gold-")) {
            return RateLimitPlan.named("gold");
        }
        if (key.startsWith("broken-")) {
            throw new IllegalStateException("the tenant table is down");
        }
        return null;
    }
}
