package dev.ratelimiter.internal.cdi.openapi;

import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.startup.StartupValidator;
import dev.ratelimiter.internal.core.settings.ClassPresence;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

import java.util.Optional;

/**
 * Warns once at startup when the library's OpenAPI filter cannot run (docs/openapi.md#with-a-filter-of-your-own):
 * MicroProfile OpenAPI runs the one class {@code mp.openapi.filter} names, and an application that names its own
 * filter there replaces the library's unless its filter extends it. Then hands the application's limits to a
 * document built where {@code CDI.current()} reaches no container ({@link DeferredDocuments}). Touches no
 * MicroProfile OpenAPI class: it asks by name whether the API is present, so the bean loads where it is absent.
 */
@ApplicationScoped
public class OpenApiRegistration {

    /** The property MicroProfile OpenAPI reads. */
    static final String FILTER_PROPERTY = "mp.openapi.filter";
    /** The library's filter, by name. */
    static final String FILTER = "dev.ratelimiter.openapi.RateLimiterOasFilter";
    private static final String OAS_FILTER = "org.eclipse.microprofile.openapi.OASFilter";

    private static final System.Logger LOG = System.getLogger(OpenApiRegistration.class.getName());

    @Inject
    LimiterConfiguration configuration;

    // The filter finds ResourceLimits through CDI.current() only; injected here, it is a used bean, which Quarkus
    // ArC never removes.
    @Inject
    ResourceLimits limits;

    /**
     * After {@link StartupValidator} (whose observer has the default priority), so a start that fails on its
     * configuration fails with the validator's message, not with this bean's first read of the settings.
     */
    void check(@Observes @Priority(Interceptor.Priority.LIBRARY_AFTER) Startup startup) {
        LimiterSettings settings;
        try {
            settings = configuration.settings();
        } catch (RuntimeException e) {
            return; // the start fails on it, and StartupValidator says why
        }
        if (settings.enabled() && settings.openApi() && ClassPresence.present(OAS_FILTER, OpenApiRegistration.class)) {
            problem(configuration.lookup().apply(FILTER_PROPERTY), Thread.currentThread().getContextClassLoader())
                    .ifPresent(warning -> LOG.log(System.Logger.Level.WARNING, warning));
        }
        // A document built where CDI.current() reaches no container: before the application's beans existed
        // (WildFly), or after, on a server thread (Payara 7 at a context root other than /).
        DeferredDocuments.started(limits::limits, Thread.currentThread().getContextClassLoader());
    }

    /** The application stops: a document built from now on no longer reads its beans. */
    @PreDestroy
    void stopped() {
        DeferredDocuments.stopped();
    }

    /**
     * Why the library's filter will not run, given {@code mp.openapi.filter}'s value; empty when it will (the
     * library's filter, or a class extending it).
     */
    static Optional<String> problem(Optional<String> named, ClassLoader loader) {
        String fix = "; the rate limits are not in the OpenAPI document. Name " + FILTER + " there, or make your filter "
                + "extend it and call super.filterOpenAPI(openAPI), or set ratelimiter.openapi.enabled=false (docs/openapi.md#with-a-filter-of-your-own)";
        String name = named.map(String::strip).orElse("");
        if (name.isEmpty()) {
            return Optional.of(FILTER_PROPERTY + " is not set" + fix);
        }
        try {
            for (Class<?> type = Class.forName(name, false, loader); type != null; type = type.getSuperclass()) {
                if (type.getName().equals(FILTER)) {
                    return Optional.empty();
                }
            }
            return Optional.of(FILTER_PROPERTY + " names " + name + ", which does not extend " + FILTER + fix);
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.of(FILTER_PROPERTY + " names " + name + ", which cannot be loaded (" + e + ")" + fix);
        }
    }
}
