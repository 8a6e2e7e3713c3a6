package dev.ratelimiter;

/**
 * Counts attempts per (bucket, key) in each window of the bucket, the way the bucket's {@link Algorithm} counts (a
 * fixed window, a token bucket or a sliding window counter), and decides each one.
 *
 * <p>A call of cost c is allowed iff every window of the bucket ({@link Bucket#limits()}) admits it: a
 * {@link Algorithm#FIXED_WINDOW fixed window} when its count so far plus c stays within its limit (the window opens
 * at the first attempt for a (bucket, key) counted in it and lasts its length; at the instant it ends the next
 * counted call opens a new one); a {@link Algorithm#TOKEN_BUCKET token bucket} when it holds c tokens; a
 * {@link Algorithm#SLIDING_WINDOW sliding window} when its current count, plus the previous window's count weighted
 * by the part of it still inside one window length back, plus c, stays within its limit. An allowed call is then
 * counted c in every window. A refused call is counted in none and never extends a window, so a refusal by a short
 * window spends nothing of a long one. Cost 0 checks without counting: it is refused exactly when a cost-1 call
 * would be.
 *
 * <p>Implementations are thread-safe. Keys arrive as given: the CDI layer normalizes and hashes them first, so
 * an implementation backed by a shared store never sees a login, principal name or address in clear.
 *
 * <p>The bean an application injects ({@code @Inject RateLimiter}) takes the key as the application has it and
 * decides as {@link RateLimits#consume(String, CharSequence, long)} does: hashed before it is counted, counted in
 * the metrics, {@link RateLimitDenied} fired on a denial, a bucket in shadow mode letting the call go on; a cost
 * out of range throws {@link IllegalArgumentException}.
 */
public interface RateLimiter {

    /**
     * Counts one attempt of cost 1 and decides it: {@link #consume(Bucket, String, long) consume(bucket, key, 1)}.
     *
     * @param bucket the bucket, never {@code null}
     * @param key    the key within the bucket, never {@code null}
     * @return the verdict; {@link Verdict.Outcome#UNAVAILABLE} when the backend failed or its deadline passed.
     *         Never throws for a backend failure.
     */
    default Verdict consume(Bucket bucket, String key) {
        return consume(bucket, key, 1);
    }

    /**
     * Decides one call of the given cost, in every window of the bucket at once, and counts it if allowed. Cheap,
     * and called before the protected work.
     *
     * @param bucket the bucket, never {@code null}
     * @param key    the key within the bucket, never {@code null}
     * @param cost   attempts the call counts, from 0 (a check that counts nothing) to
     *               {@link Bucket#largestCost()}; callers check it (a larger cost is simply refused)
     * @return the verdict; {@link Verdict.Outcome#UNAVAILABLE} when the backend failed or its deadline passed.
     *         Never throws for a backend failure.
     */
    Verdict consume(Bucket bucket, String key, long cost);

    /**
     * Clears the counter of one key, so that its next attempt finds every window empty (a token bucket full). Idempotent, safe for a key
     * never consumed, and never throws, also while the backend is down (the reset is then lost and the window
     * simply runs out).
     *
     * <p>With a shared store, each replica answers a key the store refused from memory for a short while
     * ({@code ratelimiter.deny-cache.max-age}, 1 s by default; docs/stores.md#refusals-kept-in-memory). A reset clears
     * that memory at once on the replica it is called on; another replica may go on refusing the key for at most
     * {@code max-age} before it sees the reset.
     *
     * @param bucket the bucket, never {@code null}
     * @param key    the key within the bucket, never {@code null}
     */
    void reset(Bucket bucket, String key);
}
