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
     * <p>For a bucket in shadow mode ({@code ratelimiter.buckets.<name>.mode=shadow}) the attempt is counted as
     * any other, but a refusal is returned as {@link Verdict.Outcome#ALLOWED} with {@code remaining} 0 and the
     * window's {@code resetAfter}, so code that refuses on {@code DENIED} goes on unchanged; the would-be refusal
     * is counted in the metrics ({@code outcome="shadow_denied"} or {@code "shadow_unavailable"}) and logged, and
     * no {@link RateLimitDenied} is fired.
     *
     * @param bucketName a configured bucket
     * @param key        the raw key, normalized with {@link KeyNormalization#NONE}
     * @return the decision; {@link Verdict.Outcome#UNAVAILABLE} only for a fail-closed outage
     * @throws IllegalArgumentException if the bucket is not configured
     */
    default Verdict consume(String bucketName, CharSequence key) {
        return consume(bucketName, key, KeyNormalization.NONE);
    }

    /**
     * As {@link #consume(String, CharSequence)}, normalizing the key first.
     *
     * @param bucketName    a configured bucket
     * @param key           the raw key
     * @param normalization how the key is normalized before it is hashed and counted
     * @return the decision; {@link Verdict.Outcome#UNAVAILABLE} only for a fail-closed outage
     * @throws IllegalArgumentException if the bucket is not configured
     */
    Verdict consume(String bucketName, CharSequence key, KeyNormalization normalization);

    /**
     * Clears one key's counter (raw key, {@link KeyNormalization#NONE}). Idempotent; never throws for a backend
     * failure.
     *
     * @param bucketName a configured bucket
     * @param key        the raw key
     * @throws IllegalArgumentException if the bucket is not configured
     */
    default void reset(String bucketName, CharSequence key) {
        reset(bucketName, key, KeyNormalization.NONE);
    }

    /**
     * Clears one key's counter, normalizing the raw key as the {@link RateLimitKey} that counted it did.
     *
     * @param bucketName    a configured bucket
     * @param key           the raw key
     * @param normalization the normalization the key was counted with
     * @throws IllegalArgumentException if the bucket is not configured
     */
    void reset(String bucketName, CharSequence key, KeyNormalization normalization);

    /**
     * The configured bucket of that name.
     *
     * @param bucketName a bucket's name
     * @return the bucket, as configured
     * @throws IllegalArgumentException if the bucket is not configured
     */
    Bucket bucket(String bucketName);
}
