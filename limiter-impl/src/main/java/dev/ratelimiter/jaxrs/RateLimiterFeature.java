package dev.ratelimiter.jaxrs;

import dev.ratelimiter.internal.jaxrs.GlobalRateLimitFilter;
import dev.ratelimiter.internal.jaxrs.RateLimitExceededMapper;
import dev.ratelimiter.internal.jaxrs.RateLimitHeadersFilter;
import dev.ratelimiter.internal.jaxrs.RefundResponseFilter;
import dev.ratelimiter.internal.jaxrs.SettlementResponseFilter;
import dev.ratelimiter.internal.jaxrs.RateLimitKeyMissingMapper;
import dev.ratelimiter.internal.jaxrs.RateLimiterUnavailableMapper;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;

import java.util.List;

/**
 * Registers all of the library's JAX-RS providers: the global filter (which also resolves the identity
 * {@code @RateLimited} keys by), the RateLimit headers filter, the filters that give counts back and settle costs
 * after the call, and the mappers of refusals to 429, 503 and 400 (no key).
 *
 * <p>Needed where provider scanning is off: an {@code Application} subclass whose {@code getClasses()} or
 * {@code getSingletons()} returns anything turns it off (Jakarta REST 3.1 §2.3.2), so list this class there
 * (docs/guide.md#adding-it-to-an-application). Registering it where scanning is on as well changes nothing:
 * a provider already registered is not registered again, and the global filter counts a request once.
 */
public class RateLimiterFeature implements Feature {

    private static final List<Class<?>> PROVIDERS = List.of(GlobalRateLimitFilter.class,
            RateLimitHeadersFilter.class, RefundResponseFilter.class, SettlementResponseFilter.class,
            RateLimitExceededMapper.class,
            RateLimiterUnavailableMapper.class, RateLimitKeyMissingMapper.class);

    /** Registers each provider not yet registered; always enabled. */
    @Override
    public boolean configure(FeatureContext context) {
        Configuration configuration = context.getConfiguration();
        for (Class<?> provider : PROVIDERS) {
            if (!configuration.isRegistered(provider)) {
                context.register(provider);
            }
        }
        return true;
    }
}
