package dev.ratelimiter;

import java.util.Objects;

/**
 * Thrown by the {@link RateLimited} interceptor when an attempt is denied; mapped to HTTP 429 with
 * {@code Retry-After} and the RateLimit headers.
 */
public class RateLimitExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Bucket bucket;
    private final transient Verdict verdict;

    /**
     * @param bucket  the bucket whose limit was reached
     * @param verdict the denial, with the time until the window ends
     */
    public RateLimitExceededException(Bucket bucket, Verdict verdict) {
        super("rate limit of bucket '" + bucket.name() + "' exceeded; retry after "
                + verdict.retryAfterSeconds() + " s", null, false, false);
        this.bucket = Objects.requireNonNull(bucket, "bucket");
        this.verdict = Objects.requireNonNull(verdict, "verdict");
    }

    /** The bucket whose limit was reached. */
    public Bucket bucket() {
        return bucket;
    }

    /** The denial. */
    public Verdict verdict() {
        return verdict;
    }
}
