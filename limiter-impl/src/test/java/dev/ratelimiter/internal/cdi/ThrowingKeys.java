package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitKeyResolver;
import jakarta.enterprise.context.ApplicationScoped;

/** A resolver that fails with the secret it read in its message, as careless code does. */
@ApplicationScoped
public class ThrowingKeys implements RateLimitKeyResolver {

    @Override
    public String resolve(RateLimitContext context) {
        throw new IllegalArgumentException("bad API key " + context.header("X-Api-Key").orElse("?"));
    }
}
