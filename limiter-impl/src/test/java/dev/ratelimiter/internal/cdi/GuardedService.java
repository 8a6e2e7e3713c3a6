package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.atomic.AtomicInteger;

/** A bean as an application writes one; counts how often its methods really ran. */
@ApplicationScoped
public class GuardedService {

    private final AtomicInteger runs = new AtomicInteger();

    /** How often a method body ran (read through the bean, not a field: callers hold a client proxy). */
    public int runs() {
        return runs.get();
    }

    @RateLimited(bucket = "login")
    public String login(@RateLimitKey(normalize = KeyNormalization.LOGIN) String login) {
        runs.incrementAndGet();
        return "ok";
    }

    @RateLimited(bucket = "search")
    public String search(String query) {
        runs.incrementAndGet();
        return "found";
    }
}
