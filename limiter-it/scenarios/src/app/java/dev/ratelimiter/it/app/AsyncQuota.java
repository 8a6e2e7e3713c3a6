package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** A service whose limited method answers later, on another thread (bucket {@code imports}, keyed by identity). */
@ApplicationScoped
public class AsyncQuota {

    /** "taken", 50 ms later from the common pool; a refusal is a failed stage. */
    @RateLimited(bucket = "imports")
    public CompletionStage<String> take() {
        return CompletableFuture.supplyAsync(() -> "taken",
                CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS));
    }
}
