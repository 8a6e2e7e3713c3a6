package dev.ratelimiter.example;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitKeyResolver;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;

/**
 * Keys a bucket by the {@code X-Tenant} header, case-insensitively; {@code null} without it. In a real deployment
 * the header is set by a gateway that authenticated the tenant, never taken from the client as is.
 */
@ApplicationScoped
@Named("tenant")
public class TenantKeyResolver implements RateLimitKeyResolver {

    /** The header naming the tenant. */
    public static final String HEADER = "X-Tenant";

    @Override
    public String resolve(RateLimitContext context) {
        return context.header(HEADER).orElse(null);
    }

    @Override
    public KeyNormalization normalization() {
        return KeyNormalization.LOGIN;
    }
}
