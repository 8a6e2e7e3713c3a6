package dev.ratelimiter.internal.core.verdict;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

import java.time.Duration;

import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;

/**
 * A token bucket's reservations (docs/guide.md#waiting-instead-of-refusing): a bucket that reserves
 * ({@link Bucket#reserves()}) admits a call whose tokens are not there yet if they come within its
 * {@link Bucket#maxWait()}, counting them now, so the calls that wait are served in the order they came and no two
 * are given the same tokens, on every replica sharing the store. The verdict says it as any allowed token-bucket
 * verdict does: its time until full, which for a reservation is beyond a full refill by the call's wait.
 */
public final class Reservations {

    private Reservations() {
    }

    /**
     * How long the call an allowed verdict admitted must wait for its tokens: its time until full less the time the
     * bucket takes to fill, rounded up to the millisecond as the verdict is (never early).
     *
     * @param bucket  the call's bucket
     * @param verdict the verdict of a call of cost 1 or more
     * @return the wait; {@link Duration#ZERO} for a call that may run now, a refusal, or a bucket that does not
     *         reserve
     */
    public static Duration waitOf(Bucket bucket, Verdict verdict) {
        if (!bucket.reserves() || !verdict.isAllowed()) {
            return Duration.ZERO;
        }
        long fillMicros = capacity(bucket, 0) * tokenIntervalMicros(bucket, 0);
        long waitMicros = verdict.resetAfter().toNanos() / 1_000 - fillMicros;
        return waitMicros <= 0 ? Duration.ZERO : Duration.ofMillis((waitMicros + 999) / 1_000);
    }
}
