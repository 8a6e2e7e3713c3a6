package dev.ratelimiter.internal.core.verdict;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreAnswers;

import java.time.Duration;
import java.util.List;
import java.util.function.LongFunction;

import static dev.ratelimiter.internal.core.verdict.Verdicts.clamp;
import static dev.ratelimiter.internal.core.verdict.Verdicts.needed;
import static dev.ratelimiter.internal.core.verdict.Verdicts.outcome;
import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;

/**
 * A token bucket's verdict (docs/guide.md#token-buckets) from each window's whole tokens left and time until full;
 * a refusal's wait is derived here, so no store computes it. The Valkey script's {@code tokenBuckets} decides it.
 */
public final class TokenBuckets {

    private TokenBuckets() {
    }

    /**
     * The verdict of a one-window token bucket: {@code remaining} whole tokens left; {@code resetAfter} the time
     * until the bucket is full when allowed, and for a refusal the time until the same call would be allowed (it then
     * has the tokens it needs), at least a millisecond.
     *
     * @param bucket     a token bucket of one window
     * @param cost       the call's cost
     * @param allowed    whether the call was allowed (and took its tokens)
     * @param remaining  whole tokens left after the call, clamped to 0..capacity
     * @param fullMillis milliseconds until the bucket is full, rounded up, clamped to 0..the time it takes to fill
     * @return ALLOWED or DENIED
     */
    public static Verdict single(Bucket bucket, long cost, boolean allowed, long remaining, long fullMillis) {
        return single(bucket, cost, allowed, remaining, fullMillis, fillMillis(bucket, 0));
    }

    /**
     * {@link #single(Bucket, long, boolean, long, long)} for a caller that knows the time the bucket takes to fill
     * (the in-memory store, which computes it once per key rather than dividing per call).
     *
     * @param fillMillis the milliseconds the bucket takes to fill from empty, rounded up
     * @return ALLOWED or DENIED
     */
    public static Verdict single(Bucket bucket, long cost, boolean allowed, long remaining, long fullMillis,
                                 long fillMillis) {
        return single(bucket, cost, allowed, remaining, fullMillis, fillMillis, Duration::ofMillis);
    }

    /**
     * {@link #single(Bucket, long, boolean, long, long, long)} with the verdict's {@code resetAfter} from
     * {@code durations}: for a store that keeps the last one rather than allocating one per call (the in-memory
     * store).
     *
     * @param durations the {@code resetAfter} of a number of milliseconds
     * @return ALLOWED or DENIED
     */
    public static Verdict single(Bucket bucket, long cost, boolean allowed, long remaining, long fullMillis,
                                 long fillMillis, LongFunction<Duration> durations) {
        // A reservation's time until full is beyond a fill by the call's wait (Reservations.wait)
        long full = clamp(fullMillis, bucket.reserves() ? fillMillis + bucket.maxWait().toMillis() : fillMillis);
        return new Verdict(outcome(allowed), bucket.limit(), clamp(remaining, capacity(bucket, 0)),
                durations.apply(allowed ? full : waitMillis(bucket, 0, cost, full)));
    }

    /**
     * The verdict of a token bucket of any number of windows: each window's whole tokens left and time until full;
     * the top-level values are, for a refusal, the refusing window whose tokens come last (its {@code resetAfter} is
     * when the same call would be allowed), else the window with the fewest tokens left.
     *
     * @param bucket     a token bucket
     * @param cost       the call's cost
     * @param allowed    whether the call was allowed (and took its tokens in every window)
     * @param remaining  per window, in {@link Bucket#limits()} order: whole tokens left after the call
     * @param fullMillis per window: milliseconds until it is full, rounded up
     * @return ALLOWED or DENIED, with {@link Verdict#windows()} when the bucket has several windows
     */
    public static Verdict of(Bucket bucket, long cost, boolean allowed, long[] remaining, long[] fullMillis) {
        if (!bucket.hasSeveralWindows()) {
            return single(bucket, cost, allowed, remaining[0], fullMillis[0]);
        }
        int count = bucket.limits().size();
        Verdict.Window[] windows = new Verdict.Window[count];
        long needed = needed(cost);
        int top = -1;
        long topWait = -1;
        for (int i = 0; i < count; i++) {
            long full = clamp(fullMillis[i], fillMillis(bucket, i));
            windows[i] = new Verdict.Window(bucket.limits().get(i), clamp(remaining[i], capacity(bucket, i)),
                    Duration.ofMillis(full));
            if (allowed) {
                if (top < 0 || windows[i].remaining() < windows[top].remaining()) {
                    top = i;
                }
            } else if (windows[i].remaining() < needed) {
                long wait = waitMillis(bucket, i, cost, full);
                if (wait > topWait) {
                    top = i;
                    topWait = wait;
                }
            }
        }
        if (top < 0) {
            top = 0; // a refusal no window explains: a cost above every capacity, which callers refuse first
            topWait = waitMillis(bucket, 0, cost, windows[0].resetAfter().toMillis());
        }
        Verdict.Window chosen = windows[top];
        return new Verdict(outcome(allowed), chosen.limit().limit(), chosen.remaining(),
                allowed ? chosen.resetAfter() : Duration.ofMillis(topWait), List.of(windows));
    }

    /** A token-bucket item of a store's answer, from {@code at} ({@link Verdicts#fromAnswer} checked its length). */
    static Verdict fromAnswer(Bucket bucket, long cost, boolean allowed, long[] answer, int at) {
        int count = bucket.limits().size();
        if (count == 1) {
            return single(bucket, cost, allowed, capacity(bucket, 0) - StoreAnswers.tokensMissing(answer, at, 0),
                    StoreAnswers.tokensFullMillis(answer, at, 0));
        }
        long[] remaining = new long[count];
        long[] fullMillis = new long[count];
        for (int i = 0; i < count; i++) {
            remaining[i] = capacity(bucket, i) - StoreAnswers.tokensMissing(answer, at, i);
            fullMillis[i] = StoreAnswers.tokensFullMillis(answer, at, i);
        }
        return of(bucket, cost, allowed, remaining, fullMillis);
    }

    /** Every window full ({@link Verdicts#untouched}). */
    static Verdict untouched(Bucket bucket) {
        int count = bucket.limits().size();
        long[] remaining = new long[count];
        for (int i = 0; i < count; i++) {
            remaining[i] = capacity(bucket, i);
        }
        return of(bucket, 0, true, remaining, new long[count]);
    }

    /**
     * A token bucket's theoretical arrival time (TAT, epoch microseconds) after a debit of {@code tokens}
     * ({@link dev.ratelimiter.spi.RateLimitStore#refund}): the time owed from now, or from the TAT where that is
     * later, grows by {@code tokens} × {@code interval}, up to a full refill (empty: no debt below empty, as every
     * store's decisions read a bucket; a reserving bucket's reservations beyond it stay).
     *
     * @param tat      the bucket's TAT, epoch microseconds (at or before {@code now}: full)
     * @param now      now, epoch microseconds
     * @param tokens   the tokens debited, 1 or more
     * @param interval microseconds per token
     * @param capacity the bucket's capacity, in tokens
     * @param ahead    what a reserving bucket may owe beyond empty, microseconds
     *                 ({@link dev.ratelimiter.spi.TokenBucketTiming#aheadMicros}), else 0
     * @return the TAT after the debit
     */
    public static long debited(long tat, long now, long tokens, long interval, long capacity, long ahead) {
        long owed = Math.max(tat, now) - now + Math.min(tokens, capacity + 1) * interval;
        return now + Math.min(owed, capacity * interval + ahead);
    }

    /**
     * Milliseconds until window {@code index} of a token bucket holds the tokens a call of {@code cost} needs, from
     * the time until it is full: that time less the time the tokens not needed take to refill, rounded up, at least
     * 1 (a refusal never says "now").
     */
    private static long waitMillis(Bucket bucket, int index, long cost, long fullMillis) {
        long spareMicros = Math.max(0, capacity(bucket, index) - needed(cost)) * tokenIntervalMicros(bucket, index);
        long waitMicros = fullMillis * 1_000 - spareMicros;
        return Math.max(1, Math.floorDiv(waitMicros + 999, 1_000));
    }

    /** Milliseconds window {@code index} of a token bucket takes to fill from empty, rounded up. */
    private static long fillMillis(Bucket bucket, int index) {
        return Math.floorDiv(capacity(bucket, index) * tokenIntervalMicros(bucket, index) + 999, 1_000);
    }
}
