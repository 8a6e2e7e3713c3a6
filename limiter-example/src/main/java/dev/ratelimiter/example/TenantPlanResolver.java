package dev.ratelimiter.example;

import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitPlan;
import dev.ratelimiter.RateLimitPlanResolver;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/**
 * The plan of a {@code reports} or {@code reports-monthly} call (docs/plans.md), by the bucket the context names: the
 * tenant's, from the application's tenant table ({@link DemoTenants}), looked up by the key the bucket counts, the
 * tenant that {@link TenantKeyResolver} gave. Never from a header of its own: a client that sends its plan chooses its
 * own limit. A tenant on no plan gets {@code null}, so the bucket's own limits, which the configuration sets to the
 * free plan's.
 */
@ApplicationScoped
@Named("tenant-plan")
public class TenantPlanResolver implements RateLimitPlanResolver {

    @Inject
    DemoTenants tenants;

    @Override
    public RateLimitPlan resolve(String key, RateLimitContext context) {
        return tenants.reportsPlan(context.bucket(), key).orElse(null);
    }
}
