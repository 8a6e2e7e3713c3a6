package dev.ratelimiter.openapi;

import dev.ratelimiter.internal.cdi.openapi.DeferredDocuments;
import dev.ratelimiter.internal.cdi.openapi.DocumentedLimits;
import dev.ratelimiter.internal.cdi.openapi.ResourceLimits;
import dev.ratelimiter.internal.openapi.OpenApiLimits;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;

import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * The MicroProfile OpenAPI filter that adds the rate limits to the application's OpenAPI document
 * (docs/openapi.md): on each operation a bucket limits (a resource method's {@code @RateLimited} or
 * {@code @RateLimitedBy}, and every operation under {@code ratelimiter.api.path-prefixes}), a 429 response with the
 * {@code RateLimit}, {@code RateLimit-Policy} and {@code Retry-After} headers and the refusal's
 * {@code application/problem+json} schema, a 400 where a call can lack its key, a 503 where a bucket fails closed,
 * and the {@code x-ratelimit} extension naming the buckets, their limits and windows, algorithm and plans.
 *
 * <p>The library's {@code META-INF/microprofile-config.properties} names it in {@code mp.openapi.filter}, below the
 * application's own configuration. An application with a filter of its own names that one instead; it keeps the
 * limits by extending this class and calling {@code super.filterOpenAPI(openAPI)} from its
 * {@code filterOpenAPI}, or by calling {@link #addLimits(OpenAPI)}. The limiter warns at startup when
 * {@code mp.openapi.filter} names a class that does not extend this one. Nothing is added while
 * {@code ratelimiter.enabled} or {@code ratelimiter.openapi.enabled} is {@code false}.
 *
 * <p>The limits are those in force when the server builds the document: at deployment or on the first request of
 * the document on most servers, so a later reload (docs/live-limits.md) is not shown until the server builds it
 * again.
 */
public class RateLimiterOasFilter implements OASFilter {

    private static final System.Logger LOG = System.getLogger(RateLimiterOasFilter.class.getName());

    /** A filter for the server to create; no state. */
    public RateLimiterOasFilter() {
        // MicroProfile OpenAPI creates the filter it names with its public no-argument constructor
    }

    /**
     * Adds the limits to the document, as {@link #addLimits(OpenAPI)}.
     *
     * @param openAPI the document's model, changed in place
     */
    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        addLimits(openAPI);
    }

    /**
     * Adds the limits to {@code openAPI}, from the application's beans and the limiter's settings, found through
     * CDI. Where the thread that builds the document reaches no CDI container, or one without the library's beans
     * (another application's, or the server's), the limits come from the application this class was loaded with:
     * at once when it has started, else when it starts; this is logged at level {@code DEBUG}. WildFly builds the
     * document before the application starts; Payara Micro 7 builds it after, on a server thread, for an
     * application not at the root context. Where the limits cannot be read (a start that failed), nothing is added
     * and this is logged as a warning, so the server still serves its document. Calling it twice adds nothing the
     * second time.
     *
     * @param openAPI the document's model, changed in place
     * @return how many operations got their limits now (0 when none is limited, the limiter or this part is off, or
     *         the limits wait for the application to start)
     */
    public static int addLimits(OpenAPI openAPI) {
        ToIntFunction<Supplier<DocumentedLimits>> add = limits -> addLimits(openAPI, limits);
        CDI<Object> container;
        try {
            container = CDI.current();
        } catch (IllegalStateException e) {
            LOG.log(System.Logger.Level.DEBUG, "No CDI container on the thread building the OpenAPI document: its "
                    + "rate limits are the started application's, or added when it starts (docs/openapi.md): " + e);
            // Where the document is built apart from the running application (Quarkus' build), nothing starts and
            // the runtime's own run of the filter adds them.
            return DeferredDocuments.withLimits(add);
        }
        Instance<ResourceLimits> limits = container.select(ResourceLimits.class);
        if (limits.isUnsatisfied()) {
            // A container, but not this application's (another application's, or the server's own, on the thread
            // that builds the document): the same as none.
            LOG.log(System.Logger.Level.DEBUG, "The CDI container on the thread building the OpenAPI document is "
                    + "not this application's: its rate limits are the started application's (docs/openapi.md)");
            return DeferredDocuments.withLimits(add);
        }
        return add.applyAsInt(() -> limits.get().limits());
    }

    private static int addLimits(OpenAPI openAPI, Supplier<DocumentedLimits> limits) {
        try {
            return OpenApiLimits.addTo(openAPI, limits.get());
        } catch (RuntimeException e) {
            // The document is served without the limits rather than not at all. Its cause (a start that failed on
            // bad configuration, which some servers document all the same) is the start's own message, logged
            // there with its trace; here only its last cause.
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            LOG.log(System.Logger.Level.WARNING, "The rate limits could not be added to the OpenAPI document "
                    + "(docs/openapi.md): " + cause);
            LOG.log(System.Logger.Level.DEBUG, "The rate limits could not be added to the OpenAPI document", e);
            return 0;
        }
    }
}
