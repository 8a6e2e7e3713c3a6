package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Methods of buckets that count failures only (docs/guide.md#counting-failures-only): each fails, by throwing or in
 * its own result type, when asked to.
 */
@ApplicationScoped
public class FailuresOnlyService {

    @RateLimited(bucket = "attempts")
    public String attempt(@RateLimitKey String key, boolean fail) {
        return outcome(fail);
    }

    @RateLimited(bucket = "plain", count = RateLimited.Count.FAILURES)
    public String plainFailuresOnly(@RateLimitKey String key, boolean fail) {
        return outcome(fail);
    }

    @RateLimited(bucket = "attempts", count = RateLimited.Count.ALL)
    public String attemptCountingAll(@RateLimitKey String key, boolean fail) {
        return outcome(fail);
    }

    @RateLimited(bucket = "typed")
    public String typed(@RateLimitKey String key, RuntimeException thrown) {
        if (thrown != null) {
            throw thrown;
        }
        return "ok";
    }

    @RateLimited(bucket = "attempts")
    @RateLimited(bucket = "plain")
    public String both(@RateLimitKey String key, boolean fail) {
        return outcome(fail);
    }

    @RateLimited(bucket = "attempts")
    public CompletionStage<String> stage(@RateLimitKey String key, boolean fail) {
        return CompletableFuture.supplyAsync(() -> outcome(fail));
    }

    @RateLimited(bucket = "attempts")
    public Uni<String> uni(@RateLimitKey String key, boolean fail) {
        return fail ? Uni.createFrom().failure(new IllegalStateException("wrong")) : Uni.createFrom().item("ok");
    }

    @RateLimited(bucket = "attempts")
    public Multi<String> multi(@RateLimitKey String key, boolean fail) {
        return fail ? Multi.createFrom().failure(new IllegalStateException("wrong"))
                : Multi.createFrom().items("a", "b");
    }

    private static String outcome(boolean fail) {
        if (fail) {
            throw new IllegalStateException("wrong credentials");
        }
        return "ok";
    }
}
