package dev.ratelimiter.jaxrs;

import dev.ratelimiter.RateLimiterUnavailableException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** Maps a fail-closed outage of the {@code @RateLimited} interceptor to 503. */
@Provider
public class RateLimiterUnavailableMapper implements ExceptionMapper<RateLimiterUnavailableException> {

    @Override
    public Response toResponse(RateLimiterUnavailableException exception) {
        return RateLimitResponses.unavailable(exception.bucket(), exception.verdict());
    }
}
