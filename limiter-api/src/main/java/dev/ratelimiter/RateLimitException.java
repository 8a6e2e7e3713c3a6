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

    /**
     * The refusal the {@link RateLimited} interceptor throws for this verdict, for an application that decides in
     * code ({@link RateLimits#consume(String, CharSequence)}) and turns a refusal into an exception: thrown from a
     * JAX-RS request, it is answered exactly as the interceptor's (429 or 503, {@code Retry-After}, the RateLimit
     * headers, the problem body, or the application's {@link RateLimitRefusalHandler}).
     *
     * @param bucket  the bucket that decided ({@link RateLimits#bucket(String)})
     * @param verdict a {@link Verdict.Outcome#DENIED} or {@link Verdict.Outcome#UNAVAILABLE} verdict
     * @return a {@link RateLimitExceededException} for {@code DENIED}, a {@link RateLimiterUnavailableException}
     *         for {@code UNAVAILABLE}
     * @throws IllegalArgumentException if the verdict is {@link Verdict.Outcome#ALLOWED}
     * @throws NullPointerException     if {@code bucket} or {@code verdict} is {@code null}
     */
    public static RateLimitException of(Bucket bucket, Verdict verdict) {
        Objects.requireNonNull(verdict, "verdict");
        return switch (verdict.outcome()) {
            case DENIED -> new RateLimitExceededException(bucket, verdict);
            case UNAVAILABLE -> new RateLimiterUnavailableException(bucket, verdict);
            case ALLOWED -> throw new IllegalArgumentException("an allowed attempt of bucket '"
                    + Objects.requireNonNull(bucket, "bucket").name() + "' is not a refusal");
        };
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
