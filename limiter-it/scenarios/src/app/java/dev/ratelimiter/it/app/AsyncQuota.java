package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletionStage;

/** A service whose limited method answers later, on another thread (bucket {@code imports}, keyed by identity). */
@ApplicationScoped
public class AsyncQuota {

    /** "taken", 50 ms later from another thread; a refusal is a failed stage. */
    @RateLimited(bucket = "imports")
    public CompletionStage<String> take() {
        return Later.value("taken");
    }
}
