package dev.ratelimiter;

/**
 * Counts attempts per (bucket, key) in fixed windows and decides each one.
 *
 * <p>A window opens at the first attempt for a (bucket, key) and lasts {@link Bucket#window()}. The n-th attempt
 * in it is allowed iff n &lt;= {@link Bucket#limit()}; denied attempts are counted but never extend the window.
 * At the instant the window ends the next attempt opens a new window with count 1.
 *
 * <p>Implementations are thread-safe. Keys arrive as given: the CDI layer normalizes and hashes them first, so
 * an implementation backed by a shared store never sees a login, principal name or address in clear.
 */
public interface RateLimiter {

    /**
     * Counts one attempt and decides it. Cheap, and called before the protected work.
     *
     * @param bucket the bucket, never {@code null}
     * @param key    the key within the bucket, never {@code null}
     * @return the verdict; {@link Verdict.Outcome#UNAVAILABLE} when the backend failed or its deadline passed.
     *         Never throws for a backend failure.
     */
    Verdict consume(Bucket bucket, String key);

    /**
     * Clears the counter of one key, so that its next attempt opens a new window. Idempotent, safe for a key
     * never consumed, and never throws, also while the backend is down (the reset is then lost and the window
     * simply runs out).
     *
     * <p>With a shared store, each replica answers a key the store refused from memory for a short while
     * ({@code ratelimiter.deny-cache.max-age}, 1 s by default; the README's "Fixed windows"). A reset clears that
     * memory at once on the replica it is called on; another replica may go on refusing the key for at most
     * {@code max-age} before it sees the reset.
     *
     * @param bucket the bucket, never {@code null}
     * @param key    the key within the bucket, never {@code null}
     */
    void reset(Bucket bucket, String key);
}
