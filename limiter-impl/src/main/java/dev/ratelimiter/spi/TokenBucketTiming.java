package dev.ratelimiter.spi;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;

/**
 * The token-bucket arithmetic every store decides with ({@link Algorithm#TOKEN_BUCKET}, GCRA): a window's capacity
 * and the time it takes to refill one token. A store concern, so in the SPI rather than on {@link Bucket}; the
 * bucket checks these numbers when it is made (at least one microsecond per token, full within
 * {@link Bucket#MAX_WINDOW}).
 */
public final class TokenBucketTiming {

    private static final long MICROS_PER_SECOND = 1_000_000;

    private TokenBucketTiming() {
    }

    /**
     * The most attempts window {@code index} admits at once: for a token bucket, the shortest window's
     * {@link Bucket#burst()} and every longer window's limit (its tokens when full); for a fixed or sliding window,
     * its limit.
     *
     * @param bucket the bucket, never {@code null}
     * @param index  the window's index in {@link Bucket#limits()}, from 0
     * @return attempts, at least 1
     * @throws IndexOutOfBoundsException if there is no such window
     */
    public static long capacity(Bucket bucket, int index) {
        long limit = bucket.limits().get(index).limit();
        return bucket.algorithm() == Algorithm.TOKEN_BUCKET && index == 0 ? bucket.burst() : limit;
    }

    /**
     * For a token bucket, how long window {@code index} takes to refill one token: its length divided by its limit,
     * in whole microseconds, rounded down (so the rate is kept or slightly exceeded, by less than one part in the
     * interval). Every store decides a token bucket on this same whole number, so they all agree to the microsecond.
     *
     * @param bucket the bucket, never {@code null}
     * @param index  the window's index in {@link Bucket#limits()}, from 0
     * @return microseconds, at least 1 for a token bucket (checked when the bucket is made)
     * @throws IndexOutOfBoundsException if there is no such window
     */
    public static long tokenIntervalMicros(Bucket bucket, int index) {
        Limit limit = bucket.limits().get(index);
        return limit.windowSeconds() * MICROS_PER_SECOND / limit.limit();
    }

    /**
     * How far beyond empty a token bucket may owe: for one that reserves its calls' tokens ahead
     * ({@link Bucket#reserves()}: one window and a {@link Bucket#maxWait()}), its max-wait in whole microseconds;
     * for any other bucket 0. An item of a reserving bucket is allowed iff t + max(c, 1) × interval stays within
     * capacity × interval + this, and the time owed is read as at most that ({@link RateLimitStore}'s rule).
     *
     * @param bucket the bucket, never {@code null}
     * @return microseconds, 0 to {@link Bucket#MAX_WAIT} in microseconds
     */
    public static long aheadMicros(Bucket bucket) {
        return bucket.reserves() ? bucket.maxWait().toNanos() / 1_000 : 0;
    }
}
