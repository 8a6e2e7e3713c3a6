package dev.ratelimiter;

/**
 * Thrown by the {@link RateLimited} interceptor when the backend cannot decide and the bucket's policy is
 * {@link OutagePolicy#FAIL_CLOSED}; mapped to HTTP 503 with {@code Retry-After}.
 */
public final class RateLimiterUnavailableException extends RateLimitException {

    private static final long serialVersionUID = 1L;

    /**
     * @param bucket  the fail-closed bucket
     * @param verdict the {@link Verdict.Outcome#UNAVAILABLE} verdict, with the time after which to retry
     */
    public RateLimiterUnavailableException(Bucket bucket, Verdict verdict) {
        super("rate limiter unavailable for fail-closed bucket '" + bucket.name() + "'; retry after "
                + verdict.retryAfterSeconds() + " s", bucket, verdict);
    }
}
