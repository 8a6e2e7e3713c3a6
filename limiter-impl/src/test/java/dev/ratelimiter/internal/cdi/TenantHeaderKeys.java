package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitKeyResolver;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;

/** The tenant from the {@code X-Tenant} header, normalized like a login; {@code null} without the header. */
@ApplicationScoped
@Named("tenant-header")
public class TenantHeaderKeys implements RateLimitKeyResolver {

    @Override
    public String resolve(RateLimitContext context) {
        return context.header("X-Tenant").orElse(null);
    }

    @Override
    public KeyNormalization normalization() {
        return KeyNormalization.LOGIN;
    }
}
