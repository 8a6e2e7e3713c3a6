package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.RateLimitKeyMissingException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** Maps a call refused for a missing key (a key resolver's {@code null}, no fallback) to 400. */
@Provider
public class RateLimitKeyMissingMapper implements ExceptionMapper<RateLimitKeyMissingException> {

    @Override
    public Response toResponse(RateLimitKeyMissingException exception) {
        return RateLimitResponses.keyMissing(exception.bucket());
    }
}
