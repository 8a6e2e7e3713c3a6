package dev.ratelimiter;

/**
 * CDI event fired by the decision whose call leaves a key with fewer attempts than {@code ratelimiter.near-limit.percent}
 * (20 % by default) of a window's capacity (its limit, or a token bucket's burst), when the key had at least that
 * many before the call: the moment to warn a customer before its calls are refused. Fired synchronously with
 * {@code Event.fire()}, on the deciding thread: observe it with
 * {@code void onNearLimit(@Observes RateLimitNearLimit near)} ({@code @ObservesAsync} observers are not called), keep
 * the observer short, and know that one that throws fails the call, which was allowed and counted. The request being
 * served is the one that crossed, so its principal or tenant says whom to warn (docs/guide.md#near-the-limit).
 *
 * <p>Once per key and window for a fixed window, whose count only grows until the window ends (a call that takes
 * several windows of a bucket there fires once per window); a token bucket refills and a sliding window slides, so a
 * key whose count falls back above the share and crosses again fires again. A key counted by the per-process
 * fallback during a store outage may cross there too. Never for a refused call (it counted nothing), a bucket in
 * shadow mode (its limit is not enforced yet) or a bucket that counts failures only (its calls are counted before
 * their outcome is known).
 *
 * @param bucket    the bucket, under the key's plan
 * @param hashedKey the key after normalization and hashing (as {@link RateLimitDenied#hashedKey()}); never the
 *                  login, principal name or address in clear
 * @param window    the window that crossed
 * @param limit     that window's capacity: its limit, or a token bucket's burst (the tokens it holds when full)
 * @param remaining attempts left in it after the call, below {@code limit × percent / 100}
 * @param verdict   the call's verdict, {@code ALLOWED}
 */
public record RateLimitNearLimit(Bucket bucket, String hashedKey, Limit window, long limit, long remaining,
                                 Verdict verdict) {
}
