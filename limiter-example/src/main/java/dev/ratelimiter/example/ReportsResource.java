package dev.ratelimiter.example;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.Map;

/**
 * {@code GET /api/reports} with {@code X-Tenant}: the tenant's report (here, just its name), limited per tenant from
 * any address by bucket {@code reports}, a token bucket keyed by {@link TenantKeyResolver}, under the tenant's plan
 * ({@link TenantPlanResolver}): free, 5 per minute refilled smoothly and at most 3 at once; pro ({@code acme}), 50
 * per minute and 30 at once; {@code globex}'s contract, 20 per minute. Each report also counts in the tenant's
 * calendar month, bucket {@code reports-monthly} (docs/guide.md#quotas-per-day-and-month): 1 000 a month of UTC on no
 * plan, pro's 100 000 in Paris's months, globex's 20 000 in New York's. A report refused by the rate is not
 * counted in the month. Without the header: 400, counted nowhere.
 */
@Path("reports")
@RequestScoped
public class ReportsResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited(bucket = "reports", resolver = TenantKeyResolver.class, planResolver = TenantPlanResolver.class)
    @RateLimited(bucket = "reports-monthly", resolver = TenantKeyResolver.class,
            planResolver = TenantPlanResolver.class)
    public Map<String, String> report(@HeaderParam(TenantKeyResolver.HEADER) String tenant) {
        return Map.of("tenant", tenant);
    }
}
