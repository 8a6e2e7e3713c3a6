package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

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
}
