package dev.ratelimiter;

/**
 * The programmatic face of the limiter, injectable as a CDI bean ({@code @Inject RateLimits limits}).
 *
 * <p>It applies the same normalization and hashing as {@link RateLimited}, so an application resets a login's
 * counter with the raw login string: {@code limits.reset("login", login, KeyNormalization.LOGIN)}. Its keys are the
 * application's, as a {@link RateLimitKey} parameter's and a {@link RateLimitKeyResolver}'s are: they never meet
 * the keys the library derives from a request (the principal's name, the client address), even of the same text.
 *
 * <p>Its bucket names are checked only when a method is called. A bucket injected by name,
 * {@code @Inject @BucketName("report") RateLimitBucket reports}, is checked when the application starts
 * (docs/guide.md#deciding-in-code).
 */
public interface RateLimits {

    /**
     * Counts one attempt for a raw key and returns the decision after the bucket's outage policy has been
     * applied. Does not throw for a denial: the caller reads {@link Verdict#outcome()}. An outage under
     * {@link OutagePolicy#FAIL_CLOSED} returns {@link Verdict.Outcome#UNAVAILABLE}.
     *
     * <p>Made during a JAX-RS request, the decision joins that response's {@code RateLimit-Policy} and
     * {@code RateLimit} headers as a {@link RateLimited} method's does (outside a request, as in a scheduled job,
     * nothing is recorded). To refuse the request as the interceptor would (429 or 503, {@code Retry-After}, the
     * problem body), throw {@link RateLimitException#of(Bucket, Verdict)} with {@link #bucket(String)}.
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
    default Verdict consume(String bucketName, CharSequence key, KeyNormalization normalization) {
        return consume(bucketName, key, normalization, 1);
    }

    /**
     * As {@link #consume(String, CharSequence, KeyNormalization)}, for a call of the given cost: allowed iff every
     * window of the bucket has {@code cost} attempts left, then counted {@code cost} in each; a refused call
     * consumes nothing (a cost-10 call with 5 left is refused and the 5 remain); cost 0 checks without counting,
     * refused exactly when a cost-1 call would be.
     *
     * @param bucketName    a configured bucket
     * @param key           the raw key
     * @param normalization how the key is normalized before it is hashed and counted
     * @param cost          attempts the call counts, from 0 to the bucket's largest cost
     *                      ({@link Bucket#largestCost()})
     * @return the decision; {@link Verdict.Outcome#UNAVAILABLE} only for a fail-closed outage
     * @throws IllegalArgumentException if the bucket is not configured, or the cost is negative or above the
     * bucket's largest cost
     */
    Verdict consume(String bucketName, CharSequence key, KeyNormalization normalization, long cost);

    /**
     * As {@link #consume(String, CharSequence, KeyNormalization, long)} with {@link KeyNormalization#NONE}.
     *
     * @param bucketName a configured bucket
     * @param key        the raw key
     * @param cost       attempts the call counts, from 0 to the bucket's largest cost
     * @return the decision; {@link Verdict.Outcome#UNAVAILABLE} only for a fail-closed outage
     * @throws IllegalArgumentException if the bucket is not configured, or the cost is out of range
     */
    default Verdict consume(String bucketName, CharSequence key, long cost) {
        return consume(bucketName, key, KeyNormalization.NONE, cost);
    }

    /**
     * A key's quota in a bucket, read without spending any of it (as GitHub's {@code GET /rate_limit}, which costs
     * nothing): whether a call of cost 1 would be allowed now, and what each window has left now, with nothing
     * counted. In one store round trip, under the key's plan where the bucket's {@code plan-resolver} property names a
     * resolver (as {@link #consume} decides; a resolver named only on {@link RateLimited#planResolver()} is not used
     * here). Unlike a {@link #consume} of cost 0, it is no decision: it adds nothing to the response's RateLimit
     * headers, to the decisions or near-limit calls in the metrics, or to the events, and a bucket in shadow mode
     * shows its real counts; what the store path counts on its own (a refusal answered from memory, an outage
     * policy's answer) it counts for a read too (docs/guide.md#reading-a-keys-quota).
     *
     * <p>Only an application's keys can be read (a {@link RateLimitKey}'s, a {@link RateLimitKeyResolver}'s, this
     * interface's): a key the library derives from the request (principal, client address) is counted apart and
     * reads as never counted.
     *
     * @param bucketName    a configured bucket
     * @param key           the raw key, as the calls that count it give it
     * @param normalization the normalization those calls use ({@link RateLimitKeyResolver#normalization()}, a
     *                      {@link RateLimitKey}'s)
     * @return {@code ALLOWED} when one more attempt fits in every window, else {@code DENIED}; {@code limit},
     *         {@code remaining} (left now, before any call) and {@code resetAfter} of the bucket's one window (for
     *         several, the one with the fewest attempts left), and each window's in {@link Verdict#windows()} for a
     *         bucket of several. A key never counted has every window at its limit and its whole length to run; a
     *         token bucket reads full, its burst left and {@code resetAfter} 0 (later: the time until full, or when
     *         empty until the next token). During a store outage the bucket's outage policy answers: the fallback's
     *         counts, {@code ALLOWED} with the whole limit left (fail open), or {@code UNAVAILABLE} with 0 left (fail
     *         closed)
     * @throws IllegalArgumentException      if the bucket is not configured
     * @throws UnsupportedOperationException from an implementation that cannot read a quota (the library's can)
     */
    default Verdict usage(String bucketName, CharSequence key, KeyNormalization normalization) {
        throw new UnsupportedOperationException("this RateLimits cannot read a key's quota");
    }

    /**
     * As {@link #usage(String, CharSequence, KeyNormalization)} for a raw key normalized with
     * {@link KeyNormalization#NONE}.
     *
     * @param bucketName a configured bucket
     * @param key        the raw key
     * @return the quota left, counted nowhere
     * @throws IllegalArgumentException if the bucket is not configured
     */
    default Verdict usage(String bucketName, CharSequence key) {
        return usage(bucketName, key, KeyNormalization.NONE);
    }

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

    /**
     * Reads the buckets' settings again from configuration and applies them from the next decision, on this
     * replica (docs/live-limits.md): each bucket's limits, windows, algorithm, burst, outage policy, mode and plans.
     * The settings are checked as at startup; a bucket whose new settings fail keeps the ones it had, and the problem
     * is logged, reported by the readiness check's {@code rejectedSettings} data and counted in the
     * {@code rate_limiter_rejected_settings} gauge until it is fixed. Buckets are neither added nor removed, and
     * every other property applies at startup only. Also runs every {@code ratelimiter.reload.interval}.
     *
     * @return the buckets whose settings changed, and the problems that kept settings out (each naming its
     *         property); never throws for a bad value
     * @throws UnsupportedOperationException from an implementation that cannot reload (the library's can)
     */
    default Reload reload() {
        throw new UnsupportedOperationException("this RateLimits cannot reload its settings");
    }

    /**
     * What a {@link #reload()} did.
     *
     * @param changed  the names of the buckets whose settings changed, sorted
     * @param rejected the problems that kept a bucket's old settings, or that apply at startup only, each naming its
     *                 property; empty when every value read applies
     */
    record Reload(java.util.SortedSet<String> changed, java.util.List<String> rejected) {

        /**
         * A reload's result, the collections copied.
         *
         * @param changed  the names of the buckets whose settings changed
         * @param rejected the problems that kept settings out, each naming its property
         * @throws NullPointerException if a collection is {@code null}
         */
        public Reload {
            changed = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(changed));
            rejected = java.util.List.copyOf(rejected);
        }
    }
}
