package dev.ratelimiter.it.quarkus.startup;

import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitKeyResolver;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;

/**
 * The {@code tenant} resolver the scenario resources name ({@code TenantOrAddressResource}); the other servers deploy
 * the example's own, which this application does not hold.
 */
@ApplicationScoped
@Named("tenant")
public class TenantHeaderResolver implements RateLimitKeyResolver {

    @Override
    public String resolve(RateLimitContext context) {
        return context.header("X-Tenant").orElse(null);
    }
}
