package dev.ratelimiter.it.app;

import dev.ratelimiter.jaxrs.RateLimiterFeature;
import jakarta.ws.rs.ext.Provider;

/**
 * The library's feature registered where scanning already finds the library's providers (a {@code @Provider} of
 * the application's): each request must still be counted once.
 */
@Provider
public class AlsoRegisteredFeature extends RateLimiterFeature {
}
