package dev.ratelimiter;

/**
 * Thrown by the {@link RateLimited} interceptor when an attempt is denied; mapped to HTTP 429 with
 * {@code Retry-After} and the RateLimit headers. An application that decides in code throws it the same way
 * (see {@link RateLimitException#of(Bucket, Verdict)}) and gets the same response.
 */
public final class RateLimitExceededException extends RateLimitException {

    private static final long serialVersionUID = 1L;

    /**
     * @param bucket  the bucket whose limit was reached
     * @param verdict the denial, with the time until the window ends
     */
    public RateLimitExceededException(Bucket bucket, Verdict verdict) {
        super("rate limit of bucket '" + bucket.name() + "' exceeded; retry after " + verdict.retryAfterSeconds()
                + " s", bucket, verdict);
    }
}
