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
 * {@code GET /api/reports} with {@code X-Tenant}: the tenant's report (here, just its name), 5 per minute per tenant
 * refilled smoothly, at most 3 at once (bucket {@code reports}, a token bucket keyed by {@link TenantKeyResolver}) from
 * any address. Without the header: 400, counted nowhere.
 */
@Path("reports")
@RequestScoped
public class ReportsResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited(bucket = "reports", resolver = TenantKeyResolver.class)
    public Map<String, String> report(@HeaderParam(TenantKeyResolver.HEADER) String tenant) {
        return Map.of("tenant", tenant);
    }
}
