package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.concurrent.CompletionStage;

/** Resource methods returning {@code CompletionStage}, limited with bucket {@code imports}. */
@Path("async")
@RequestScoped
public class AsyncResource {

    @Inject
    AsyncQuota quota;

    /** {@code GET /api/async/stage}: limited itself; the stage completes 50 ms later on another thread. */
    @GET
    @Path("stage")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited(bucket = "imports")
    public CompletionStage<String> stage() {
        return Later.value("done");
    }

    /**
     * {@code GET /api/async/wrapped}: not limited itself; it transforms a limited service's stage, so a refusal
     * reaches the server wrapped in a {@code CompletionException}.
     */
    @GET
    @Path("wrapped")
    @Produces(MediaType.TEXT_PLAIN)
    public CompletionStage<String> wrapped() {
        return quota.take().thenApply(String::toUpperCase);
    }
}
