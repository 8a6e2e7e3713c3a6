package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A client of a partner's API whose calls wait for the partner's limit: bucket {@code partner}, keyed by account. */
@ApplicationScoped
public class PartnerClient {

    @RateLimited(bucket = "partner")
    public String quote(@RateLimitKey String account) {
        return "quote for " + account;
    }

    /** Waits without a thread: the stage completes once the call may run, and has run. */
    @RateLimited(bucket = "partner")
    public CompletionStage<String> quoteLater(@RateLimitKey String account) {
        return CompletableFuture.completedFuture("quote for " + account);
    }

    /** Waits without a thread, as a {@code Uni}: decided, and run, at each subscription. */
    @RateLimited(bucket = "partner")
    public Uni<String> quoteUni(@RateLimitKey String account) {
        return Uni.createFrom().item("quote for " + account);
    }

    /** {@code partner} decided after {@code partner-daily}: only a method's first bucket waits. */
    @RateLimited(bucket = "partner-daily")
    @RateLimited(bucket = "partner")
    public String quoteCounted(@RateLimitKey String account) {
        return "quote for " + account;
    }

    /**
     * The partner answers {@code status}, with {@code Retry-After: retryAfter} when it is not 200, as a MicroProfile
     * Rest Client throws it: a {@code WebApplicationException} with the response.
     */
    @RateLimited(bucket = "partner")
    public String quoteAnswered(@RateLimitKey String account, int status, String retryAfter) {
        if (status != 200) {
            throw new WebApplicationException(Response.status(status).header("Retry-After", retryAfter).build());
        }
        return "quote for " + account;
    }

    /** As {@link #quoteAnswered}, the response returned, as a JAX-RS client's {@code Response}. */
    @RateLimited(bucket = "partner")
    public Response quoteResponse(@RateLimitKey String account, int status, String retryAfter) {
        return Response.status(status).header("Retry-After", retryAfter).build();
    }
}
