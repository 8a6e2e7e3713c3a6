package dev.ratelimiter;

import jakarta.ws.rs.core.Response;

/**
 * Replaces the library's refusal responses: implement it as one CDI bean (for example
 * {@code @ApplicationScoped}) and every refusal, from the global JAX-RS filter and from {@link RateLimited}
 * methods alike (and a {@link RateLimitException} the application throws itself), is answered with the response
 * it returns.
 *
 * <p>The library's response is otherwise a 429 or 503 {@code application/problem+json} body (RFC 9457) with the
 * problem types of draft-ietf-httpapi-ratelimit-headers-10 §5 (docs/guide.md#refusal-responses). Whatever
 * the replacement, the library adds {@code Retry-After}, {@code Cache-Control: no-store} and the RateLimit
 * headers unless it set them itself.
 *
 * <p>Called on the thread that refuses the request, which may be a worker thread without the request context
 * (Quarkus, a shared store, a non-blocking endpoint): read what you need from the refusal, not from request-scoped
 * beans. It should not throw: if it throws, the library's own response is sent and the failure is logged once
 * (never a 500). With two such beans the library's own response is sent too, and that is logged once.
 */
public interface RateLimitRefusalHandler {

    /**
     * The response for one refused request.
     *
     * @param refusal {@link RateLimitExceededException} for a denial (the library answers 429), or
     *                {@link RateLimiterUnavailableException} for a fail-closed outage (503); its
     *                {@link RateLimitException#bucket()} and {@link RateLimitException#verdict()} give the bucket
     *                and the seconds to wait ({@link Verdict#retryAfterSeconds()})
     * @return the response to send, any status; {@code null} to send the library's own
     */
    Response toResponse(RateLimitException refusal);
}
