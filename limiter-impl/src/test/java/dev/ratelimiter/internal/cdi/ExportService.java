package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Methods of the concurrency bucket {@code exports} (docs/guide.md#concurrency-limits): slow exports a tenant may run
 * a few of at once, each holding a permit until it ends. No Mutiny here, so the store modules' tests, which have none,
 * use it too ({@link UniExportService} has the {@code Uni}).
 */
@ApplicationScoped
public class ExportService {

    /** Runs until {@code release} opens, having told {@code started} it runs. */
    @RateLimited(bucket = "exports")
    public String run(@RateLimitKey String tenant, CountDownLatch started, CountDownLatch release)
            throws InterruptedException {
        started.countDown();
        if (!release.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never released");
        }
        return "exported";
    }

    /** Fails: its permit is given back all the same. */
    @RateLimited(bucket = "exports")
    public String fail(@RateLimitKey String tenant) {
        throw new IllegalStateException("the export failed");
    }

    /** Holds its permit until the stage it returns completes. */
    @RateLimited(bucket = "exports")
    public CompletionStage<String> later(@RateLimitKey String tenant, CompletableFuture<String> result) {
        return result;
    }

    /** A permit of {@code exports}, then a rate of {@code export-starts}: a refusal of the rate gives the permit back. */
    @RateLimited(bucket = "exports")
    @RateLimited(bucket = "export-starts")
    public String started(@RateLimitKey String tenant) {
        return "started";
    }
}
