package dev.ratelimiter.example;

import dev.ratelimiter.RateLimitPlan;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;
import java.util.Optional;

/**
 * The demo tenants and what each pays for, standing for the application's tenant table (a real application reads
 * it from its database): {@code acme} on the pro plan, {@code globex} with a contract of its own (20 reports per
 * minute), every other tenant on no plan, so the free limits ({@code reports}'s own). Keyed by the tenant as
 * {@link TenantKeyResolver} normalizes it (lower case, trimmed).
 */
@ApplicationScoped
public class DemoTenants {

    /** The tenant on the pro plan. */
    public static final String PRO = "acme";

    /** The tenant with a contract of its own. */
    public static final String CONTRACT = "globex";

    /** {@link #CONTRACT}'s reports per minute. */
    public static final long CONTRACT_REPORTS_PER_MINUTE = 20;

    private static final Map<String, RateLimitPlan> PLANS = Map.of(
            PRO, RateLimitPlan.named("pro"),
            CONTRACT, RateLimitPlan.limit(CONTRACT_REPORTS_PER_MINUTE));

    /**
     * The tenant's reports plan.
     *
     * @param tenant the tenant, lower case and trimmed
     * @return its declared plan or its contract's limits; empty for a tenant on no plan (or unknown)
     */
    public Optional<RateLimitPlan> reportsPlan(String tenant) {
        return Optional.ofNullable(PLANS.get(tenant));
    }
}
