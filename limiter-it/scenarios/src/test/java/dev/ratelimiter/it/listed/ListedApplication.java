package dev.ratelimiter.it.listed;

import dev.ratelimiter.jaxrs.RateLimiterFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The example's application written the other way: {@code getClasses()} lists its classes, which turns provider
 * scanning off (Jakarta REST 3.1 §2.3.2), and the library's {@link RateLimiterFeature} is listed with them, as
 * docs/guide.md#adding-it-to-an-application shows. Replaces {@code ExampleApplication} in
 * {@code ExampleDeployments#listed}.
 */
@ApplicationPath("/api")
public class ListedApplication extends Application {

    /** The example's resources and providers, by name: this module does not compile against the example. */
    private static final List<String> EXAMPLE_CLASSES = List.of(
            "dev.ratelimiter.example.ProjectsResource", "dev.ratelimiter.example.LoginResource",
            "dev.ratelimiter.example.MeResource", "dev.ratelimiter.example.ImportsResource",
            "dev.ratelimiter.example.BearerTokenFilter", "dev.ratelimiter.example.ImportRejectedMapper",
            "dev.ratelimiter.example.MalformedBodyMapper", "dev.ratelimiter.example.MalformedJsonMapper",
            "dev.ratelimiter.example.ReportsResource", "dev.ratelimiter.example.SearchResource",
            "dev.ratelimiter.example.UsageResource", "dev.ratelimiter.example.CompletionsResource",
            "dev.ratelimiter.example.ExportsResource",
            "dev.ratelimiter.it.app.ItemsResource", "dev.ratelimiter.it.app.AsyncResource",
            "dev.ratelimiter.it.app.TenantOrAddressResource",
            "dev.ratelimiter.it.app.DecidedResource", "dev.ratelimiter.it.app.RefusalStyleFilter",
            "dev.ratelimiter.it.app.TrialResource", "dev.ratelimiter.it.app.SelfCallResource",
            "dev.ratelimiter.it.app.TieredResource");

    @Override
    public Set<Class<?>> getClasses() {
        Set<Class<?>> classes = new HashSet<>();
        for (String name : EXAMPLE_CLASSES) {
            try {
                classes.add(Class.forName(name, false, ListedApplication.class.getClassLoader()));
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(name + " is not in the deployment", e);
            }
        }
        classes.add(RateLimiterFeature.class);
        return classes;
    }
}
