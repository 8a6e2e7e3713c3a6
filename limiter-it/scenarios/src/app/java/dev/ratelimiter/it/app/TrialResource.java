package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/trial}: limited by bucket {@code trial} (2 per hour, keyed by the request's identity), which the
 * scenarios' configuration puts in shadow mode ({@code ExampleDeployments#SCENARIO_CONFIG}): a limit being rolled
 * out, counted but never refused.
 */
@Path("trial")
@RequestScoped
public class TrialResource {

    /** {@code GET}: "trial", however often it is called. */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited(bucket = "trial")
    public String get() {
        return "trial";
    }
}
