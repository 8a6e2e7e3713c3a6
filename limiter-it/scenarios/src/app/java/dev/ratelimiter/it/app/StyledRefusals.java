package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.RateLimitRefusalHandler;
import dev.ratelimiter.RateLimiterUnavailableException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The application's replacement of the refusal responses, as docs/guide.md#refusal-responses shows, applied only
 * where the request asked for it ({@link RefusalStyle}), so the other scenarios see the library's own:
 * {@code plain} answers a text body with a header of its own and leaves the rest to the library;
 * {@code broken} throws, and the library must answer with its own response.
 */
@ApplicationScoped
public class StyledRefusals implements RateLimitRefusalHandler {

    /** The header of a replaced refusal. */
    public static final String REFUSED_BY = "X-Refused-By";

    @Inject
    RefusalStyle style;

    @Override
    public Response toResponse(RateLimitException refusal) {
        String requested;
        try {
            requested = style.style();
        } catch (ContextNotActiveException e) {
            return null; // refused on a thread without the request: the library's response
        }
        return switch (requested) {
            case "plain" -> Response.status(refusal instanceof RateLimiterUnavailableException ? 503 : 429)
                    .type(MediaType.TEXT_PLAIN)
                    .header(REFUSED_BY, "application")
                    .entity("Slow down: " + refusal.bucket().name() + " allows " + refusal.bucket().limit()
                            + " per " + refusal.bucket().windowSeconds() + " s.")
                    .build();
            case "broken" -> throw new IllegalStateException("a refusal handler that fails (scenario)");
            default -> null;
        };
    }
}
