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
     * bucket takes to fill, both to the millisecond. The verdict's {@code resetAfter} is rounded up to the
     * millisecond, so the fill time is too: a call that took the last token of a bucket whose fill time is not a
     * whole number of milliseconds (3 a second: 999 999 µs) waits nothing, where the exact fill time would read a
     * millisecond of wait from the rounding alone. A wait of less than a millisecond, which a verdict cannot tell
     * from none, reads as none.
     *
     * @param bucket  the call's bucket
     * @param verdict the verdict of a call of cost 1 or more
     * @return the wait, in whole milliseconds; {@link Duration#ZERO} for a call that may run now, a refusal, or a
     *         bucket that does not reserve
     */
    public static Duration waitOf(Bucket bucket, Verdict verdict) {
        return waitOf(bucket, verdict, 0);
    }

    /**
     * How long a call of cost 1 would wait, read from the verdict of a check (cost 0, which counts nothing and
     * reserves nothing): {@link #waitOf(Bucket, Verdict)} with one token interval more owed.
     *
     * @param bucket  the call's bucket
     * @param verdict the verdict of a call of cost 0
     * @return the wait, in whole milliseconds; {@link Duration#ZERO} as {@link #waitOf(Bucket, Verdict)} says
     */
    public static Duration checkWaitOf(Bucket bucket, Verdict verdict) {
        return waitOf(bucket, verdict, 1);
    }

    private static Duration waitOf(Bucket bucket, Verdict verdict, long uncounted) {
        if (!bucket.reserves() || !verdict.isAllowed()) {
            return Duration.ZERO;
        }
        // Both sides to the millisecond, as the verdict's time until full is: beyond the point from which the call's
        // tokens are there now (a full refill, less the tokens the verdict has not counted)
        long interval = tokenIntervalMicros(bucket, 0);
        long runsNowMillis = ceilMillis((capacity(bucket, 0) - uncounted) * interval);
        long waitMillis = verdict.resetAfter().toMillis() - runsNowMillis;
        return waitMillis <= 0 ? Duration.ZERO : Duration.ofMillis(waitMillis);
    }

    private static long ceilMillis(long micros) {
        return (micros + 999) / 1_000;
    }
}
