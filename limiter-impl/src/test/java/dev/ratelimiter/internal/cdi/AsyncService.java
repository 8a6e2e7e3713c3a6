package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/** A bean whose limited methods return asynchronous results; counts how often a method body really ran. */
@ApplicationScoped
public class AsyncService {

    private final AtomicInteger runs = new AtomicInteger();

    public int runs() {
        return runs.get();
    }

    @RateLimited(bucket = "login")
    public CompletionStage<String> stage(@RateLimitKey String key) {
        runs.incrementAndGet();
        return CompletableFuture.supplyAsync(() -> "done");
    }

    @RateLimited(bucket = "login")
    public CompletableFuture<String> future(@RateLimitKey String key) {
        runs.incrementAndGet();
        return CompletableFuture.completedFuture("done");
    }

    @RateLimited(bucket = "login")
    public Uni<String> uni(@RateLimitKey String key) {
        runs.incrementAndGet();
        return Uni.createFrom().item("done");
    }

    @RateLimited(bucket = "login")
    public Multi<String> multi(@RateLimitKey String key) {
        runs.incrementAndGet();
        return Multi.createFrom().items("a", "b");
    }
}
