package dev.ratelimiter.example;

import dev.ratelimiter.RateLimitPlan;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;

/**
 * The demo tenants and what each pays for, standing for the application's tenant table (a real application reads
 * it from its database): {@code acme} on the pro plan, its monthly quota in Paris's months; {@code globex} with a
 * contract of its own (20 reports per minute, 20 000 a month in New York's months); every other tenant on no plan,
 * so the free limits (the buckets' own, the month of UTC). Keyed by the tenant as {@link TenantKeyResolver}
 * normalizes it (lower case, trimmed).
 */
@ApplicationScoped
public class DemoTenants {

    /** The tenant on the pro plan. */
    public static final String PRO = "acme";

    /** The tenant with a contract of its own. */
    public static final String CONTRACT = "globex";

    /** {@link #CONTRACT}'s reports per minute. */
    public static final long CONTRACT_REPORTS_PER_MINUTE = 20;

    /** {@link #CONTRACT}'s reports per calendar month. */
    public static final long CONTRACT_REPORTS_PER_MONTH = 20_000;

    /** {@link #PRO}'s time zone, whose months its monthly quota follows. */
    public static final ZoneId PRO_ZONE = ZoneId.of("Europe/Paris");

    /** {@link #CONTRACT}'s time zone. */
    public static final ZoneId CONTRACT_ZONE = ZoneId.of("America/New_York");

    /** The bucket of reports per minute. */
    static final String REPORTS = "reports";

    /** The bucket of reports per calendar month. */
    static final String REPORTS_MONTHLY = "reports-monthly";

    private static final Map<String, RateLimitPlan> PLANS = Map.of(
            PRO, RateLimitPlan.named("pro"),
            CONTRACT, RateLimitPlan.limit(CONTRACT_REPORTS_PER_MINUTE));

    private static final Map<String, RateLimitPlan> MONTHLY_PLANS = Map.of(
            PRO, RateLimitPlan.named("pro").inZone(PRO_ZONE),
            CONTRACT, RateLimitPlan.limit(CONTRACT_REPORTS_PER_MONTH).inZone(CONTRACT_ZONE));

    /**
     * The tenant's plan for one of the reports buckets.
     *
     * @param bucket {@code reports} or {@code reports-monthly}
     * @param tenant the tenant, lower case and trimmed
     * @return its declared plan or its contract's limits, in its zone for the monthly quota; empty for a tenant on no
     *         plan (or unknown), or another bucket
     */
    public Optional<RateLimitPlan> reportsPlan(String bucket, String tenant) {
        return Optional.ofNullable(switch (bucket) {
            case REPORTS -> PLANS.get(tenant);
            case REPORTS_MONTHLY -> MONTHLY_PLANS.get(tenant);
            default -> null;
        });
    }
}
