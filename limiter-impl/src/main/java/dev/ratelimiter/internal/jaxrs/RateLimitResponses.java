package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.RateLimiterUnavailableException;
import dev.ratelimiter.Verdict;
import jakarta.json.Json;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The library's own refusals: 429 Too Many Requests (RFC 6585 §4) for a denial, 503 Service Unavailable for a
 * fail-closed outage, 400 for a request without a key ({@link #keyMissing(String)}). The first two carry {@code Retry-After} in whole seconds (RFC 9110 §10.2.3),
 * {@code Cache-Control: no-store} and an {@code application/problem+json} body (RFC 9457) whose problem type is
 * the one draft-ietf-httpapi-ratelimit-headers-10 §5 defines for the case:
 * <pre>
 * {"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Quota Exceeded",
 *  "status":429,"detail":"Rate limit of bucket 'login' exceeded: 5 per 900 s. Retry after 52 s.",
 *  "violated-policies":["login"],"bucket":"login","retryAfter":52}
 * </pre>
 * {@code #temporary-reduced-capacity} ("Temporary Reduced Capacity", §5.2) for the 503. {@code violated-policies}
 * holds the policy names as {@code RateLimit-Policy} writes them ({@link RateLimitHeaders#violatedPolicies(Bucket, Verdict)}),
 * {@code bucket} the bucket's name and {@code retryAfter} the seconds of {@code Retry-After}. The RateLimit headers
 * are added by {@link RateLimitHeadersFilter}; an application's {@code RateLimitRefusalHandler} may replace the
 * whole response ({@link RefusalResponder}).
 */
public final class RateLimitResponses {

    /** RFC 9457's media type. */
    public static final String PROBLEM_JSON = "application/problem+json";

    /** draft-ietf-httpapi-ratelimit-headers-10 §5.1: the request exceeds one or more quota policies. */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

    /** draft-ietf-httpapi-ratelimit-headers-10 §5.2: the server cannot serve the request for now. */
    public static final String TEMPORARY_REDUCED_CAPACITY =
            "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

    /** {@code Cache-Control} of every refusal: a refusal holds for one client and one moment. */
    static final String NO_STORE = "no-store";

    private RateLimitResponses() {
    }

    /** The response for a refusal: 503 for {@link RateLimiterUnavailableException}, else 429. */
    public static Response of(RateLimitException refusal) {
        return refusal instanceof RateLimiterUnavailableException
                ? unavailable(refusal.bucket(), refusal.verdict())
                : tooManyRequests(refusal.bucket(), refusal.verdict());
    }

    /**
     * The problem type of a key on the bucket's deny list (docs/guide.md#allow-and-deny-lists): no quota was
     * exceeded, so not {@link #QUOTA_EXCEEDED}. A tag URI (RFC 4151) under the domain of the library's Maven group
     * ({@code dev.ratelimiter}): an identifier to compare, not a page to fetch, as RFC 9457 §3.1.1 allows.
     */
    public static final String KEY_DENIED = "tag:ratelimiter.dev,2026:key-denied";

    /**
     * 429 for a denied attempt, problem type {@link #QUOTA_EXCEEDED}; for a key on the bucket's deny list
     * ({@link Verdict#isDenyListed()}), {@link #KEY_DENIED}.
     */
    public static Response tooManyRequests(Bucket bucket, Verdict verdict) {
        if (verdict.isDenyListed()) {
            return problem(429, "Too Many Requests", KEY_DENIED, "Key Denied", "Bucket '" + bucket.name()
                    + "' refuses this caller: its key or address is on the bucket's deny list. Retry after "
                    + verdict.retryAfterSeconds() + " s.", bucket, verdict);
        }
        if (bucket.isConcurrency()) {
            return problem(429, "Too Many Requests", QUOTA_EXCEEDED, "Quota Exceeded", "Concurrency limit of bucket '"
                    + bucket.name() + "' reached: " + bucket.limit() + " calls in flight. Retry after "
                    + verdict.retryAfterSeconds() + " s.", bucket, verdict);
        }
        return problem(429, "Too Many Requests", QUOTA_EXCEEDED, "Quota Exceeded", "Rate limit of bucket '"
                + bucket.name() + "' exceeded: "
                + bucket.limits().stream().map(limit -> limit.limit() + " per " + (limit.isCalendar()
                        ? limit.windowName() + " (" + bucket.zoneName() + ")" : limit.windowSeconds() + " s"))
                .collect(Collectors.joining(" and ")) + ". Retry after " + verdict.retryAfterSeconds() + " s.",
                bucket, verdict);
    }

    /** 503 for a fail-closed bucket whose backend is unavailable, problem type {@link #TEMPORARY_REDUCED_CAPACITY}. */
    public static Response unavailable(Bucket bucket, Verdict verdict) {
        return problem(503, "Service Unavailable", TEMPORARY_REDUCED_CAPACITY, "Temporary Reduced Capacity",
                "The rate limiter of bucket '" + bucket.name() + "' is unavailable and the bucket fails closed. "
                        + "Retry after " + verdict.retryAfterSeconds() + " s.", bucket, verdict);
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

    private static Response problem(int status, String reason, String type, String title, String detail,
            Bucket bucket, Verdict verdict) {
        String body = Json.createObjectBuilder()
                .add("type", type)
                .add("title", title)
                .add("status", status)
                .add("detail", detail)
                // a deny list is no policy of the RateLimit-Policy field: nothing was exceeded
                .add("violated-policies", Json.createArrayBuilder(verdict.isDenyListed() ? List.of()
                        : RateLimitHeaders.violatedPolicies(bucket, verdict)))
                .add("bucket", bucket.name())
                .add("retryAfter", verdict.retryAfterSeconds())
                .build()
                .toString();
        return Response.status(status, reason)
                .header(HttpHeaders.RETRY_AFTER, verdict.retryAfterSeconds())
                .header(HttpHeaders.CACHE_CONTROL, NO_STORE)
                .type(PROBLEM_JSON)
                .entity(body)
                .build();
    }
}
