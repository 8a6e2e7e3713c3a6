package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/live}: limited by bucket {@code live} (5 a minute, keyed by the request's identity), which only the
 * live-limits scenarios change while the server runs ({@code LiveLimitsScenarios}, docs/live-limits.md).
 */
@Path("live")
@RequestScoped
public class LiveResource {

    /** {@code GET}: "live", while the bucket allows it. */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited(bucket = "live")
    public String get() {
        return "live";
    }
}
