package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitPlan;
import dev.ratelimiter.RateLimitPlanResolver;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tenant table standing for an application's: acme on pro, globex with a contract of 3, initech on a plan no
 * bucket declares, {@code broken} throws, anyone else no plan. Counts how often it is asked.
 */
@ApplicationScoped
@Named("tenant-plans")
public class TenantPlans implements RateLimitPlanResolver {

    private final Map<String, RateLimitPlan> tenants = new ConcurrentHashMap<>(Map.of(
            "acme", RateLimitPlan.named("pro"),
            "globex", RateLimitPlan.limit(3),
            "initech", RateLimitPlan.named("gold")));
    private final AtomicInteger asked = new AtomicInteger();

    /** Puts a tenant on a plan (methods, not fields: a test holds the bean's client proxy). */
    public void put(String tenant, RateLimitPlan plan) {
        tenants.put(tenant, plan);
    }

    /** {@return how often the resolver was asked} */
    public int asked() {
        return asked.get();
    }

    @Override
    public RateLimitPlan resolve(String key, RateLimitContext context) {
        asked.incrementAndGet();
        if (key.equals("broken")) {
            throw new IllegalStateException("the tenant table is down for " + key);
        }
        return tenants.get(key);
    }
}
