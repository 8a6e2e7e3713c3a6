package dev.ratelimiter;

import java.util.Optional;

/**
 * How a bucket's windows count attempts (docs/guide.md#choosing-an-algorithm). Each window of a bucket counts
 * the same way; a store declares which it decides ({@code dev.ratelimiter.spi.RateLimitStoreProvider}).
 */
public enum Algorithm {
    /**
     * A window opens at a key's first counted attempt and admits {@code limit} attempts until it ends,
     * {@code window} later: a client may spend the whole limit at once, and up to twice the limit across the
     * end of one window and the start of the next.
     */
    FIXED_WINDOW("fixed-window"),
    /**
     * A token bucket per window, decided as the generic cell rate algorithm (GCRA): it holds at most its
     * capacity (the shortest window's {@link Bucket#burst()}, every longer window's limit), refills one token every
     * {@code window / limit} (in whole microseconds, rounded down; a store reads both numbers from
     * {@code dev.ratelimiter.spi.TokenBucketTiming}), and a call of cost c takes c tokens. Over any span s it admits
     * at most capacity + s × limit / window.
     */
    TOKEN_BUCKET("token-bucket"),
    /**
     * The sliding window counter: each window keeps the count of the window now open and of the one before it,
     * and a call of cost c is allowed iff the current count, plus the previous count weighted by the part of the
     * previous window still inside one window length back, plus c, stays within the limit. Windows follow one
     * another from a key's first counted call. It smooths a fixed window's boundary burst without a token
     * bucket's refill model, but is an estimate: over a span s of at most one window w it admits up to about
     * limit × (1 + s / w), close to twice the limit within one window length when a previous window filled at its
     * end and a burst comes at the end of the current one (docs/guide.md#sliding-windows).
     */
    SLIDING_WINDOW("sliding-window"),
    /**
     * A concurrency limit: at most {@code limit} calls of a key in flight at once, across every replica sharing
     * the store (docs/guide.md#concurrency-limits). A call takes a permit before it runs and gives it back when it
     * ends; the permit is a lease of {@code window} (the bucket's only window, its lease time), renewed while the
     * call runs, so a replica that dies mid-call frees its permits within one lease. Configured with
     * {@code ratelimiter.buckets.<name>.concurrency} and {@code lease}, not {@code algorithm}; a call counts one
     * permit whatever its cost.
     */
    CONCURRENCY("concurrency");

    private final String configName;

    Algorithm(String configName) {
        this.configName = configName;
    }

    /** {@return the name in configuration ({@code ratelimiter.buckets.<name>.algorithm}), {@code fixed-window}...} */
    public String configName() {
        return configName;
    }

    /**
     * The algorithm of a configuration name.
     *
     * @param name {@code fixed-window}, {@code token-bucket}, {@code sliding-window} or {@code concurrency}, exactly
     * @return the algorithm, or empty for any other name
     */
    public static Optional<Algorithm> ofConfigName(String name) {
        for (Algorithm algorithm : values()) {
            if (algorithm.configName.equals(name)) {
                return Optional.of(algorithm);
            }
        }
        return Optional.empty();
    }
}
