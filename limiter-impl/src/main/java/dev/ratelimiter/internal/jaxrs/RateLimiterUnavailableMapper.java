package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.RateLimiterUnavailableException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Maps a fail-closed outage to 503 (or the application's {@code RateLimitRefusalHandler} response): the
 * {@code @RateLimited} interceptor's, and one the application throws after {@code RateLimits.consume} (see
 * {@link RefusalResponder}).
 */
@Provider
@ApplicationScoped
public class RateLimiterUnavailableMapper implements ExceptionMapper<RateLimiterUnavailableException> {

    @Inject
    RefusalResponder refusals;

    @Override
    public Response toResponse(RateLimiterUnavailableException exception) {
        return refusals.respond(exception);
    }
}
