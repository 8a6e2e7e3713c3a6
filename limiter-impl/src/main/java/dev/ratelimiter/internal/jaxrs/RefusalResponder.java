package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.RateLimitRefusalHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The response of every refusal, from the global filter and from the 429/503 exception mappers alike: the
 * application's {@link RateLimitRefusalHandler} bean where there is one, else the library's problem response
 * ({@link RateLimitResponses}). A handler that throws, returns {@code null} or is ambiguous (two beans) gives way
 * to the library's response, never a 500; a failure is logged once. A replacement keeps {@code Retry-After} and
 * {@code Cache-Control} from the library unless it set them; the RateLimit headers are added by
 * {@link RateLimitHeadersFilter} the same way (docs/guide.md#refusal-responses).
 */
@ApplicationScoped
public class RefusalResponder {

    private static final System.Logger LOG = System.getLogger(RefusalResponder.class.getName());

    @Inject
    Instance<RateLimitRefusalHandler> handlers;

    private final AtomicBoolean failureLogged = new AtomicBoolean();

    /**
     * The response for a refusal.
     *
     * @param refusal a denial (429 by default) or a fail-closed outage (503)
     * @return the handler's response with the library's headers it lacks, or the library's own response
     */
    public Response respond(RateLimitException refusal) {
        Response standard = RateLimitResponses.of(refusal);
        if (handlers.isUnsatisfied()) {
            return standard;
        }
        Response replaced;
        try {
            replaced = handlers.get().toResponse(refusal);
        } catch (RuntimeException e) {
            if (failureLogged.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.ERROR, "The application's " + RateLimitRefusalHandler.class.getName()
                        + " failed for a refusal of bucket '" + refusal.bucket().name() + "', so the library's "
                        + "own response was sent; it is sent for every refusal the handler fails on (logged "
                        + "once)", e);
            }
            return standard;
        }
        return replaced == null ? standard : withStandardHeaders(replaced, standard);
    }

    /** {@code replaced} with the standard refusal's {@code Retry-After} and {@code Cache-Control} where it has none. */
    private static Response withStandardHeaders(Response replaced, Response standard) {
        boolean retryAfter = replaced.getHeaders().containsKey(HttpHeaders.RETRY_AFTER);
        boolean cacheControl = replaced.getHeaders().containsKey(HttpHeaders.CACHE_CONTROL);
        if (retryAfter && cacheControl) {
            return replaced;
        }
        Response.ResponseBuilder builder = Response.fromResponse(replaced);
        if (!retryAfter) {
            builder.header(HttpHeaders.RETRY_AFTER, standard.getHeaderString(HttpHeaders.RETRY_AFTER));
        }
        if (!cacheControl) {
            builder.header(HttpHeaders.CACHE_CONTROL, standard.getHeaderString(HttpHeaders.CACHE_CONTROL));
        }
        return builder.build();
    }
}
