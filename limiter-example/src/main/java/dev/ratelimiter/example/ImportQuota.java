package dev.ratelimiter.example;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

/** Imports are costly: 3 attempts per hour per workspace (bucket {@code imports}), whether they succeed or not. */
@ApplicationScoped
public class ImportQuota {

    /** Takes one import attempt of the workspace; throws {@code RateLimitExceededException} past the limit. */
    @RateLimited(bucket = "imports")
    public void take(@RateLimitKey String workspace) {
        // The interceptor does the counting; nothing else to do.
    }
}
