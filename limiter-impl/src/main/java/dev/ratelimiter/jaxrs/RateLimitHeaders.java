package dev.ratelimiter.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.cdi.AppliedLimits.Applied;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Formats the RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-10 (Structured Field lists, RFC
 * 9651), one item per bucket consulted during the request:
 * <pre>
 * RateLimit-Policy: "api-anonymous";q=120;w=60
 * RateLimit: "api-anonymous";r=119;t=60
 * </pre>
 * {@code q} is the limit, {@code w} the window in seconds, {@code r} the remaining attempts and {@code t} the
 * seconds until the window ends (rounded up, as Retry-After).
 */
public final class RateLimitHeaders {

    /** The policy field's name. */
    public static final String POLICY = "RateLimit-Policy";
    /** The current-state field's name. */
    public static final String RATE_LIMIT = "RateLimit";

    private RateLimitHeaders() {
    }

    /**
     * The name of a bucket's policy in {@code RateLimit-Policy} and {@code RateLimit} (the item's key), also the
     * name a refusal's problem body lists in {@code violated-policies}.
     */
    public static String policyName(Bucket bucket) {
        return bucket.name();
    }

    /** The {@code RateLimit-Policy} value for these verdicts. */
    public static String policy(List<Applied> applied) {
        return applied.stream()
                .map(a -> "\"" + policyName(a.bucket()) + "\";q=" + a.bucket().limit() + ";w=" + a.bucket().windowSeconds())
                .collect(Collectors.joining(", "));
    }

    /** The {@code RateLimit} value for these verdicts. */
    public static String rateLimit(List<Applied> applied) {
        return applied.stream()
                .map(a -> "\"" + policyName(a.bucket()) + "\";r=" + a.verdict().remaining() + ";t="
                        + a.verdict().retryAfterSeconds())
                .collect(Collectors.joining(", "));
    }
}
