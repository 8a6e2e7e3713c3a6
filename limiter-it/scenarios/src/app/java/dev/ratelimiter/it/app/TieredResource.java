package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/tiered/{tenant}}: bucket {@code tiered} keyed by the tenant in the path, under the plan that the
 * bucket's configured plan resolver ({@link TierResolver}, by {@code ratelimiter.buckets.tiered.plan-resolver})
 * gives the tenant: free 2 per hour (the bucket's own limits), pro 6, a contract's explicit 4.
 */
@Path("tiered/{tenant}")
@RequestScoped
public class TieredResource {

    /** {@code GET}: the tenant, while it has attempts left under its plan. */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited(bucket = "tiered")
    public String get(@RateLimitKey @PathParam("tenant") String tenant) {
        return tenant;
    }
}
