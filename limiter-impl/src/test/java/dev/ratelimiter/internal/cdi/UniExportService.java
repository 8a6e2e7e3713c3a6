package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletableFuture;

/** An export of the concurrency bucket {@code exports} returning a Mutiny {@code Uni} ({@link ExportService}'s kin). */
@ApplicationScoped
public class UniExportService {

    /** Holds its permit from each subscription until the {@code Uni} it returns ends, or is cancelled. */
    @RateLimited(bucket = "exports")
    public Uni<String> uni(@RateLimitKey String tenant, CompletableFuture<String> result) {
        return Uni.createFrom().completionStage(result);
    }
}
