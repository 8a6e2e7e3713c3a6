package dev.ratelimiter;

/**
 * The programmatic face of the limiter, injectable as a CDI bean ({@code @Inject RateLimits limits}).
 *
 * <p>It applies the same normalization and hashing as {@link RateLimited}, so an application resets a login's
 * counter with the raw login string: {@code limits.reset("login", login, KeyNormalization.LOGIN)}.
 */
public interface RateLimits {

    /**
     * Counts one attempt for a raw key and returns the decision after the bucket's outage policy has been
     * applied. Does not throw for a denial: the caller reads {@link Verdict#outcome()}. An outage under
     * {@link OutagePolicy#FAIL_CLOSED} returns {@link Verdict.Outcome#UNAVAILABLE}.
     *
     * @param bucketName a configured bucket
     * @param key        the raw key, normalized with {@link KeyNormalization#NONE}
     * @throws IllegalArgumentException if the bucket is not configured
     */
    default Verdict consume(String bucketName, CharSequence key) {
        return consume(bucketName, key, KeyNormalization.NONE);
    }

    /**
     * As {@link #consume(String, CharSequence)}, normalizing the key first.
     *
     * @throws IllegalArgumentException if the bucket is not configured
     */
    Verdict consume(String bucketName, CharSequence key, KeyNormalization normalization);

    /**
     * Clears one key's counter (raw key, {@link KeyNormalization#NONE}). Idempotent; never throws for a backend
     * failure.
     *
     * @throws IllegalArgumentException if the bucket is not configured
     */
    default void reset(String bucketName, CharSequence key) {
        reset(bucketName, key, KeyNormalization.NONE);
    }

    /**
     * Clears one key's counter, normalizing the raw key as the {@link RateLimitKey} that counted it did.
     *
     * @throws IllegalArgumentException if the bucket is not configured
     */
    void reset(String bucketName, CharSequence key, KeyNormalization normalization);

    /**
     * The configured bucket of that name.
     *
     * @throws IllegalArgumentException if the bucket is not configured
     */
    Bucket bucket(String bucketName);
}
