package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimited.Key;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/** Methods with several limits and keys from resolvers, as an application writes them. */
@ApplicationScoped
public class SeveralLimitsService {

    /**
     * The beans this service's methods name beside it: its key resolvers. A container that deploys the service needs
     * them, and {@link #buckets()} configured.
     */
    public static final Class<?>[] RESOLVERS = {TenantHeaderKeys.class, ThrowingKeys.class, FirstArgumentKeys.class};

    private final AtomicInteger runs = new AtomicInteger();

    /**
     * The buckets its methods name: per-address 3 and per-account 2 per 15 minutes, per-tenant 2 per minute; a new
     * map, for a test to add to.
     */
    public static Map<String, String> buckets() {
        return new HashMap<>(Map.of(
                "ratelimiter.buckets.per-address.limit", "3",
                "ratelimiter.buckets.per-address.window", "PT15M",
                "ratelimiter.buckets.per-account.limit", "2",
                "ratelimiter.buckets.per-account.window", "PT15M",
                "ratelimiter.buckets.per-tenant.limit", "2",
                "ratelimiter.buckets.per-tenant.window", "PT1M"));
    }

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
