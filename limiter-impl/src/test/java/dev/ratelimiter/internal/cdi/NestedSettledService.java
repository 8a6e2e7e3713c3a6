package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitCosts;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** A settled method another settled method of the same bucket calls with the same key: a nested call. */
@ApplicationScoped
public class NestedSettledService {

    @Inject
    RateLimitCosts costs;

    @RateLimited(bucket = "tokens", settle = true)
    public String inner(@RateLimitKey String tenant, long used) {
        costs.settle(used);
        return "ok";
    }
}
