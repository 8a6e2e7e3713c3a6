package dev.ratelimiter;

/**
 * One configured bucket, for code that counts calls itself: {@link RateLimits} with the bucket's name given once,
 * where the deployment checks it. Injected with {@link BucketName}, {@code @Inject @BucketName("report")
 * RateLimitBucket reports}, it is checked when the application starts: a bucket that is not configured fails the
 * deployment instead of the first request (docs/guide.md#deciding-in-code). Its keys are the
 * application's, as {@link RateLimits}'s are: {@code reports.reset(login, KeyNormalization.LOGIN)} clears the
 * counter that {@code @RateLimited(bucket = "report")} with a {@code LOGIN}-normalized {@link RateLimitKey} made.
 */
public interface RateLimitBucket {

    /**
     * The bucket, as configured.
     *
     * @return the bucket
     */
    Bucket bucket();

    /**
     * {@link RateLimits#consume(String, CharSequence, KeyNormalization, long)} on this bucket: counts {@code cost}
     * attempts for a raw key and returns the decision after the bucket's outage policy; does not throw for a
     * refusal.
     *
     * @param key           the raw key
     * @param normalization how the key is normalized before it is hashed and counted
     * @param cost          attempts the call counts, from 0 to the bucket's largest cost
     *                      ({@link Bucket#largestCost()})
     * @return the decision; {@link Verdict.Outcome#UNAVAILABLE} only for a fail-closed outage
     * @throws IllegalArgumentException if the cost is negative or above the bucket's largest cost
     */
    Verdict consume(CharSequence key, KeyNormalization normalization, long cost);

    /**
     * One attempt for a raw key, {@link KeyNormalization#NONE}.
     *
     * @param key the raw key
     * @return the decision; {@link Verdict.Outcome#UNAVAILABLE} only for a fail-closed outage
     */
    default Verdict consume(CharSequence key) {
        return consume(key, KeyNormalization.NONE, 1);
    }

    /**
     * One attempt for a raw key, normalized first.
     *
     * @param key           the raw key
     * @param normalization how the key is normalized before it is hashed and counted
     * @return the decision; {@link Verdict.Outcome#UNAVAILABLE} only for a fail-closed outage
     */
    default Verdict consume(CharSequence key, KeyNormalization normalization) {
        return consume(key, normalization, 1);
    }

    /**
     * {@code cost} attempts for a raw key, {@link KeyNormalization#NONE}.
     *
     * @param key  the raw key
     * @param cost attempts the call counts, from 0 to the bucket's largest cost
     * @return the decision; {@link Verdict.Outcome#UNAVAILABLE} only for a fail-closed outage
     * @throws IllegalArgumentException if the cost is out of range
     */
    default Verdict consume(CharSequence key, long cost) {
        return consume(key, KeyNormalization.NONE, cost);
    }

    /**
     * The key's quota in this bucket, read without spending any of it ({@link RateLimits#usage(String, CharSequence,
     * KeyNormalization)}).
     *
     * @param key           the raw key
     * @param normalization the normalization the calls that count it use
     * @return whether a call of cost 1 would be allowed now and what each window has left now, counted nowhere
     * @throws UnsupportedOperationException from an implementation that cannot read a quota (the library's can)
     */
    default Verdict usage(CharSequence key, KeyNormalization normalization) {
        throw new UnsupportedOperationException("this RateLimitBucket cannot read a key's quota");
    }

    /**
     * The quota of a raw key counted with {@link KeyNormalization#NONE}, read without spending any of it
     * ({@link #usage(CharSequence, KeyNormalization)}).
     *
     * @param key the raw key
     * @return what a call of cost 1 would be told now and what is left now, counted nowhere
     */
    default Verdict usage(CharSequence key) {
        return usage(key, KeyNormalization.NONE);
    }

    /**
     * Clears one key's counter, normalizing the raw key as the call that counted it did. Idempotent; never throws
     * for a store failure.
     *
     * @param key           the raw key
     * @param normalization the normalization the key was counted with
     */
    void reset(CharSequence key, KeyNormalization normalization);

    /**
     * Clears one key's counter (raw key, {@link KeyNormalization#NONE}). Idempotent; never throws for a store
     * failure.
     *
     * @param key the raw key
     */
    default void reset(CharSequence key) {
        reset(key, KeyNormalization.NONE);
    }
}
