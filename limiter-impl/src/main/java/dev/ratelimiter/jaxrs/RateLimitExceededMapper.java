package dev.ratelimiter.jaxrs;

import dev.ratelimiter.RateLimitExceededException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** Maps a denial of the {@code @RateLimited} interceptor to 429. */
@Provider
public class RateLimitExceededMapper implements ExceptionMapper<RateLimitExceededException> {

    @Override
    public Response toResponse(RateLimitExceededException exception) {
        return RateLimitResponses.tooManyRequests(exception.bucket(), exception.verdict());
    }
}
