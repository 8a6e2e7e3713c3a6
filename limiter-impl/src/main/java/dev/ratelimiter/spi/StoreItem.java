package dev.ratelimiter.spi;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;

import java.util.Objects;

/**
 * One decision a store is asked for: a call of {@code cost} against every window of {@code bucket} for one hashed
 * key (docs/architecture.md#the-store-spi).
 *
 * @param bucket the bucket, whose {@link Bucket#limits()} are decided together, atomically
 * @param key    the hashed key (HMAC-SHA-256 or SHA-256, hex): never a login, principal or address in clear
 * @param cost   attempts the call counts in every window, from 0 (a check that counts nothing) to the bucket's
 *               {@link Bucket#largestCost()}
 */
public record StoreItem(Bucket bucket, String key, long cost) {

    /**
     * @throws NullPointerException     if {@code bucket} or {@code key} is {@code null}
     * @throws IllegalArgumentException if {@code cost} is negative
     */
    public StoreItem {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        if (cost < 0) {
            throw new IllegalArgumentException("cost " + cost + " is negative");
        }
    }

    /**
     * How many numbers a store's answer holds for one decided item of this bucket ({@link RateLimitStore#consume}):
     * 1 (allowed or not), then per window 2 numbers, or 3 for a {@link Algorithm#SLIDING_WINDOW sliding window};
     * {@link StoreAnswers#length}, where the whole layout is.
     *
     * @param bucket the item's bucket
     * @return {@code 1 + 2 × windows}, or {@code 1 + 3 × windows} for a sliding window
     */
    public static int answerLength(Bucket bucket) {
        return StoreAnswers.length(bucket);
    }
}
