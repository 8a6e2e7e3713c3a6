package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitKeyResolver;
import jakarta.enterprise.context.ApplicationScoped;

/** The method's first argument, for calls outside HTTP. */
@ApplicationScoped
public class FirstArgumentKeys implements RateLimitKeyResolver {

    @Override
    public String resolve(RateLimitContext context) {
        return context.arguments().isEmpty() ? null : (String) context.arguments().get(0);
    }
}
