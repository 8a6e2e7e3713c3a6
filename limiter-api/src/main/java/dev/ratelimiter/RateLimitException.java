package dev.ratelimiter;

import java.util.Objects;

/**
 * A call refused by the rate limiter, before the protected work ran: denied ({@link RateLimitExceededException},
 * HTTP 429) or, for a fail-closed bucket whose backend is down, {@link RateLimiterUnavailableException} (503).
 * Carries the bucket and the verdict; no stack trace is filled in, since a refusal is an expected outcome on a
 * hot path.
 */
public abstract sealed class RateLimitException extends RuntimeException
        permits RateLimitExceededException, RateLimiterUnavailableException {

    private static final long serialVersionUID = 1L;

    private final transient Bucket bucket;
    private final transient Verdict verdict;

    RateLimitException(String message, Bucket bucket, Verdict verdict) {
        super(message, null, false, false);
        this.bucket = Objects.requireNonNull(bucket, "bucket");
        this.verdict = Objects.requireNonNull(verdict, "verdict");
    }

    /** {@return the bucket that refused the call} */
    public Bucket bucket() {
        return bucket;
    }

    /** {@return the verdict, with the time after which to retry ({@link Verdict#retryAfterSeconds()})} */
    public Verdict verdict() {
        return verdict;
    }
}
