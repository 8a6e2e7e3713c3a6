package dev.ratelimiter.internal.core.verdict;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreAnswers;

import java.time.Duration;
import java.util.List;
import java.util.function.LongFunction;

import static dev.ratelimiter.internal.core.verdict.Verdicts.clamp;
import static dev.ratelimiter.internal.core.verdict.Verdicts.needed;
import static dev.ratelimiter.internal.core.verdict.Verdicts.outcome;

/**
 * A sliding-window bucket's verdict (docs/guide.md#sliding-windows) from each window's state after the call, on
 * {@link SlidingWindow}'s arithmetic: {@code remaining} is the limit less the current count and the previous count's
 * weighted part, rounded up; {@code resetAfter}, for an allowed call, the time until every counted call has slid out
 * (the whole limit is back: the current window's end plus one window length while it counts anything), and for a
 * refusal the time until the same call would be allowed, at least a millisecond, which may lie beyond the current
 * window's end. The Valkey script's {@code slidingWindows} decides it.
 */
public final class SlidingWindows {

    private SlidingWindows() {
    }

    /**
     * The verdict of a sliding-window bucket of any number of windows; the top-level values are those of the
     * refusing window that allows the call last, else of the window with the fewest attempts left.
     *
     * @param bucket    a sliding-window bucket
     * @param cost      the call's cost
     * @param allowed   whether the call was allowed (and counted in every window)
     * @param current   per window, in {@link Bucket#limits()} order: its current window's count after the call
     * @param previous  per window: the count of the window before the current one
     * @param endMillis per window: milliseconds until the current window ends, 1 to the window's length (its whole
     *                  length when the key has no state)
     * @return ALLOWED or DENIED, with {@link Verdict#windows()} when the bucket has several windows
     */
    public static Verdict of(Bucket bucket, long cost, boolean allowed, long[] current, long[] previous,
                             long[] endMillis) {
        if (!bucket.hasSeveralWindows()) {
            return single(bucket, cost, allowed, current[0], previous[0], endMillis[0]);
        }
        int count = bucket.limits().size();
        long needed = needed(cost);
        Verdict.Window[] windows = new Verdict.Window[count];
        int top = -1;
        long topWait = 0;
        for (int i = 0; i < count; i++) {
            Limit limit = bucket.limits().get(i);
            long windowMillis = limit.window().toMillis();
            long cur = Math.max(0, current[i]);
            long prev = Math.max(0, previous[i]);
            long end = Math.max(1, Math.min(endMillis[i], windowMillis));
            windows[i] = new Verdict.Window(limit, remaining(limit.limit(), cur, SlidingWindow.weighted(prev, end,
                    windowMillis)),
                    Duration.ofMillis(emptyMillis(windowMillis, cur, prev, end)));
            if (allowed) {
                if (top < 0 || windows[i].remaining() < windows[top].remaining()) {
                    top = i;
                }
            } else {
                long wait = SlidingWindow.waitMillis(limit.limit(), windowMillis, cur, prev, end, needed);
                if (wait > topWait) {
                    top = i;
                    topWait = wait;
                }
            }
        }
        if (top < 0) {
            top = 0; // a refusal no window explains: a cost above every limit, which callers refuse first
            topWait = 1;
        }
        Verdict.Window chosen = windows[top];
        return new Verdict(outcome(allowed), chosen.limit().limit(), chosen.remaining(),
                allowed ? chosen.resetAfter() : Duration.ofMillis(topWait), List.of(windows));
    }

    /**
     * {@link #of} for a bucket of one window, without arrays.
     *
     * @param bucket    a sliding-window bucket of one window
     * @param cost      the call's cost
     * @param allowed   whether the call was allowed (and counted)
     * @param current   the current window's count after the call
     * @param previous  the previous window's count
     * @param endMillis milliseconds until the current window ends, 1 to the window's length
     * @return ALLOWED or DENIED
     */
    public static Verdict single(Bucket bucket, long cost, boolean allowed, long current, long previous,
                                 long endMillis) {
        return single(bucket, cost, allowed, current, previous, endMillis, Duration::ofMillis);
    }

    /**
     * {@link #single(Bucket, long, boolean, long, long, long)} with the verdict's {@code resetAfter} from
     * {@code durations}: for a store that keeps the last one rather than allocating one per call (the in-memory
     * store).
     *
     * @param durations the {@code resetAfter} of a number of milliseconds
     * @return ALLOWED or DENIED
     */
    public static Verdict single(Bucket bucket, long cost, boolean allowed, long current, long previous,
                                 long endMillis, LongFunction<Duration> durations) {
        Limit limit = bucket.limits().get(0);
        long windowMillis = limit.window().toMillis();
        long cur = Math.max(0, current);
        long prev = Math.max(0, previous);
        long end = Math.max(1, Math.min(endMillis, windowMillis));
        long remaining = remaining(limit.limit(), cur, SlidingWindow.weighted(prev, end, windowMillis));
        long reset = allowed ? emptyMillis(windowMillis, cur, prev, end)
                : Math.max(1, SlidingWindow.waitMillis(limit.limit(), windowMillis, cur, prev, end, needed(cost)));
        return new Verdict(outcome(allowed), limit.limit(), remaining, durations.apply(reset));
    }

    /**
     * An allowed call's verdict of a one-window bucket whose previous count's weight the store has computed already
     * to decide the call ({@link SlidingWindow#fits(double, long, long, long)}): the in-memory store, which so
     * divides once per call rather than twice. The same verdict as
     * {@link #single(Bucket, long, boolean, long, long, long, LongFunction)} for the same numbers.
     *
     * @param limit        the window's limit
     * @param windowMillis the window's length W
     * @param current      the current window's count after the call, not negative
     * @param previous     the previous window's count, not negative
     * @param endMillis    milliseconds until the current window ends, 1 to W
     * @param weighted     {@link SlidingWindow#weighted SlidingWindow.weighted(previous, endMillis, windowMillis)}
     * @param durations    the {@code resetAfter} of a number of milliseconds
     * @return ALLOWED
     */
    public static Verdict allowedSingle(long limit, long windowMillis, long current, long previous, long endMillis,
                                        double weighted, LongFunction<Duration> durations) {
        return new Verdict(Verdict.Outcome.ALLOWED, limit, remaining(limit, current, weighted),
                durations.apply(emptyMillis(windowMillis, current, previous, endMillis)));
    }

    /** A sliding-window item of a store's answer, from {@code at} ({@link Verdicts#fromAnswer} checked its length). */
    static Verdict fromAnswer(Bucket bucket, long cost, boolean allowed, long[] answer, int at) {
        int count = bucket.limits().size();
        if (count == 1) {
            return single(bucket, cost, allowed, StoreAnswers.slidingCurrent(answer, at, 0),
                    StoreAnswers.slidingPrevious(answer, at, 0), StoreAnswers.slidingEndMillis(answer, at, 0));
        }
        long[] current = new long[count];
        long[] previous = new long[count];
        long[] endMillis = new long[count];
        for (int i = 0; i < count; i++) {
            current[i] = StoreAnswers.slidingCurrent(answer, at, i);
            previous[i] = StoreAnswers.slidingPrevious(answer, at, i);
            endMillis[i] = StoreAnswers.slidingEndMillis(answer, at, i);
        }
        return of(bucket, cost, allowed, current, previous, endMillis);
    }

    /** Every window without state: nothing counted, its whole length to run ({@link Verdicts#untouched}). */
    static Verdict untouched(Bucket bucket) {
        int count = bucket.limits().size();
        long[] endMillis = new long[count];
        for (int i = 0; i < count; i++) {
            endMillis[i] = bucket.limits().get(i).window().toMillis();
        }
        return of(bucket, 0, true, new long[count], new long[count], endMillis);
    }

    /** Attempts left in a sliding window: the limit less the current count and the previous one's weight, rounded up. */
    private static long remaining(long limit, long cur, double weighted) {
        return clamp(limit - cur - (long) Math.ceil(weighted), limit);
    }

    /** Milliseconds until a sliding window holds nothing: until its current window ends, plus W if that counts. */
    private static long emptyMillis(long windowMillis, long cur, long prev, long end) {
        return cur > 0 ? end + windowMillis : prev > 0 ? end : 0;
    }
}
