package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimited.Key;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/** Methods with several limits and keys from resolvers, as an application writes them. */
@ApplicationScoped
public class SeveralLimitsService {

    private final AtomicInteger runs = new AtomicInteger();

    /** How often a method body ran. */
    public int runs() {
        return runs.get();
    }

    /** Per client address first, so an address spraying accounts is stopped before it counts on them. */
    @RateLimited(bucket = "per-address", key = Key.CLIENT_ADDRESS)
    @RateLimited(bucket = "per-account", key = Key.PARAMETER)
    public String login(@RateLimitKey(normalize = KeyNormalization.LOGIN) String login) {
        runs.incrementAndGet();
        return "ok";
    }

    @RateLimited(bucket = "per-tenant", resolver = TenantHeaderKeys.class)
    public String report() {
        runs.incrementAndGet();
        return "report";
    }

    @RateLimited(bucket = "per-tenant", resolverName = "tenant-header", fallback = Key.CLIENT_ADDRESS)
    public String reportOrAddress() {
        runs.incrementAndGet();
        return "report";
    }

    @RateLimited(bucket = "per-address", key = Key.CLIENT_ADDRESS)
    @RateLimited(bucket = "per-tenant", resolver = ThrowingKeys.class)
    public String throwing() {
        runs.incrementAndGet();
        return "never";
    }

    @RateLimited(bucket = "per-tenant", resolver = TenantHeaderKeys.class)
    public CompletionStage<String> reportLater() {
        runs.incrementAndGet();
        return CompletableFuture.completedFuture("report");
    }

    @RateLimited(bucket = "per-account", key = Key.PRINCIPAL)
    public String mine() {
        runs.incrementAndGet();
        return "mine";
    }

    /** Outside a request, a resolver may still key by the arguments. */
    @RateLimited(bucket = "per-tenant", resolver = FirstArgumentKeys.class)
    public String job(String tenant) {
        runs.incrementAndGet();
        return "done";
    }
}
