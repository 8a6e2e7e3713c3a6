package dev.ratelimiter.it.quarkus.startup;

import dev.ratelimiter.it.app.AsyncResource;
import dev.ratelimiter.it.app.ItemsResource;
import dev.ratelimiter.jaxrs.RateLimiterFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

import java.util.Set;

/**
 * An application that lists its classes ({@code getClasses()}, which Quarkus REST honours as the only resources
 * and providers) and the library's {@link RateLimiterFeature} with them, as
 * docs/guide.md#adding-it-to-an-application shows.
 */
@ApplicationPath("/api")
public class ListedApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(PingResource.class, ItemsResource.class, AsyncResource.class, RateLimiterFeature.class);
    }
}
