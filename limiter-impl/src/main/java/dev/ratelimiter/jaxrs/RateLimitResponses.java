package dev.ratelimiter.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import jakarta.json.Json;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import java.util.stream.Collectors;

/**
 * Builds the refusals: 429 Too Many Requests (RFC 6585 §4) for a denial, 503 Service Unavailable for a
 * fail-closed outage, 400 for a request without a key ({@link #keyMissing(String)}). Both carry {@code Retry-After} in whole seconds (RFC 9110 §10.2.3) and an
 * {@code application/problem+json} body (RFC 9457) naming the bucket; the RateLimit headers are added by
 * {@link RateLimitHeadersFilter}.
 */
public final class RateLimitResponses {

    /** RFC 9457's media type. */
    public static final String PROBLEM_JSON = "application/problem+json";

    private RateLimitResponses() {
    }

    /** 429 for a denied attempt. */
    public static Response tooManyRequests(Bucket bucket, Verdict verdict) {
        return problem(429, "Too Many Requests", "Rate limit of bucket '" + bucket.name() + "' exceeded: "
                + bucket.limits().stream().map(limit -> limit.limit() + " per " + limit.windowSeconds() + " s")
                .collect(Collectors.joining(" and ")) + ". Retry after " + verdict.retryAfterSeconds() + " s.",
                bucket, verdict);
    }

    /** 503 for a fail-closed bucket whose backend is unavailable. */
    public static Response unavailable(Bucket bucket, Verdict verdict) {
        return problem(503, "Service Unavailable", "The rate limiter of bucket '" + bucket.name()
                + "' is unavailable and the bucket fails closed. Retry after " + verdict.retryAfterSeconds()
                + " s.", bucket, verdict);
    }

    /**
     * 400 Bad Request (RFC 9110 §15.5.1) for a call whose bucket has no key: its key resolver gave none and the
     * bucket has no fallback key source. An {@code application/problem+json} body naming the bucket, never the key;
     * no {@code Retry-After} (the same request would fail again).
     */
    public static Response keyMissing(String bucket) {
        String body = Json.createObjectBuilder()
                .add("type", "about:blank")
                .add("title", "Bad Request")
                .add("status", 400)
                .add("detail", "The request carries no key for the rate limit of bucket '" + bucket + "'.")
                .add("bucket", bucket)
                .build()
                .toString();
        return Response.status(400, "Bad Request")
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .type(PROBLEM_JSON)
                .entity(body)
                .build();
    }

    private static Response problem(int status, String title, String detail, Bucket bucket, Verdict verdict) {
        String body = Json.createObjectBuilder()
                .add("type", "about:blank")
                .add("title", title)
                .add("status", status)
                .add("detail", detail)
                .add("bucket", bucket.name())
                .add("retryAfter", verdict.retryAfterSeconds())
                .build()
                .toString();
        return Response.status(status, title)
                .header(HttpHeaders.RETRY_AFTER, verdict.retryAfterSeconds())
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .type(PROBLEM_JSON)
                .entity(body)
                .build();
    }
}
