package dev.ratelimiter.it.wildfly.ft;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@link RetriedService} over HTTP, below the example's {@code /api}. The library's refusal is not caught here:
 * its exception mapper answers 429.
 */
@Path("ft")
@RequestScoped
@Produces(MediaType.TEXT_PLAIN)
public class FaultToleranceResource {

    /** The two buckets: {@code ft-retry} 2 per hour, {@code ft-both} 3 per hour. */
    public static final String CONFIG = "ratelimiter.buckets.ft-retry.limit=2\n"
            + "ratelimiter.buckets.ft-retry.window=PT1H\n"
            + "ratelimiter.buckets.ft-both.limit=3\n"
            + "ratelimiter.buckets.ft-both.window=PT1H\n";

    @Inject
    RetriedService service;

    /** 200 with how often the body ran in this call once Fault Tolerance gave up retrying. */
    @GET
    @Path("retried/{key}")
    public String retried(@PathParam("key") String key) {
        int before = service.invocations(key);
        try {
            service.alwaysFailing(key);
        } catch (IllegalStateException e) {
            // Fault Tolerance's retries are spent; the count below is the answer.
        }
        return String.valueOf(service.invocations(key) - before);
    }

    /** 200 when the body ran; 503 when SmallRye's {@code @RateLimit} refused. */
    @GET
    @Path("twice/{key}")
    public Response twice(@PathParam("key") String key) {
        try {
            service.limitedTwice(key);
            return Response.ok("ran").build();
        } catch (io.smallrye.faulttolerance.api.RateLimitException e) {
            return Response.status(Response.Status.SERVICE_UNAVAILABLE).entity("refused by @RateLimit").build();
        }
    }

    /** How often a method's body ran for the key, over all calls. */
    @GET
    @Path("invocations/{key}")
    public String invocations(@PathParam("key") String key) {
        return String.valueOf(service.invocations(key));
    }
}
