package dev.ratelimiter;

import java.util.Objects;

/**
 * Thrown by the {@link RateLimited} interceptor when the backend cannot decide and the bucket's policy is
 * {@link OutagePolicy#FAIL_CLOSED}; mapped to HTTP 503 with {@code Retry-After}.
 */
public class RateLimiterUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Bucket bucket;
    private final transient Verdict verdict;

    /**
     * @param bucket  the fail-closed bucket
     * @param verdict the {@link Verdict.Outcome#UNAVAILABLE} verdict, with the time after which to retry
     */
    public RateLimiterUnavailableException(Bucket bucket, Verdict verdict) {
        super("rate limiter unavailable for fail-closed bucket '" + bucket.name() + "'; retry after "
                + verdict.retryAfterSeconds() + " s", null, false, false);
        this.bucket = Objects.requireNonNull(bucket, "bucket");
        this.verdict = Objects.requireNonNull(verdict, "verdict");
    }

    /** The fail-closed bucket. */
    public Bucket bucket() {
        return bucket;
    }

    /** The unavailable verdict. */
    public Verdict verdict() {
        return verdict;
    }
}
