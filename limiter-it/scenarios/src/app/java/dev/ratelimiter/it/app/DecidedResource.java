package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/decided/{key}}: decides in code, as docs/guide.md#deciding-in-code shows: one attempt of bucket
 * {@code imports} (3 per hour) keyed by the path, and a refusal thrown as the interceptor would throw it.
 */
@Path("decided/{key}")
@RequestScoped
public class DecidedResource {

    @Inject
    RateLimits limits;

    /** "decided" while the key has attempts left; else the interceptor's refusal, thrown. */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String decide(@PathParam("key") String key) {
        Verdict verdict = limits.consume("imports", key);
        if (!verdict.isAllowed()) {
            throw RateLimitException.of(limits.bucket("imports"), verdict);
        }
        return "decided";
    }
}
