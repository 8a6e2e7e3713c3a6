package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/**
 * {@code GET /api/tenant-or-address}: bucket {@code imports} (3 per hour) keyed by the example's {@code tenant}
 * resolver (the {@code X-Tenant} header), falling back to the client address when the header is absent.
 */
@Path("tenant-or-address")
@RequestScoped
public class TenantOrAddressResource {

    @GET
    @RateLimited(bucket = "imports", resolverName = "tenant", fallback = RateLimited.Key.CLIENT_ADDRESS)
    public String get() {
        return "ok";
    }
}
