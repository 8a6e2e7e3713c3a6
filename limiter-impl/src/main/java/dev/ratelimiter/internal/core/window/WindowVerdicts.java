package dev.ratelimiter.internal.core.window;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;

import java.time.Duration;
import java.util.List;

import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;

/**
 * Builds a store's {@link Verdict} from each window's state after a decision, the same way for every store
 * (docs/guide.md#several-windows-per-bucket, its windows and response headers): one window gives a verdict without
 * {@link Verdict#windows()}; several give every window's state, with the top-level values of the refusing window that
 * ends last for a refusal (its reset is when the same call may pass), else of the window with the fewest attempts left.
 */
public final class WindowVerdicts {

    private WindowVerdicts() {
    }

    /**
     * The smallest number of attempts a window must have left for a call of this cost: the cost, and 1 for cost
     * 0, which checks whether a cost-1 call would pass.
     *
     * @param cost the call's cost, not negative
     * @return at least 1
     */
    public static long needed(long cost) {
        return Math.max(1, cost);
    }

    /**
     * The verdict of a one-window bucket.
     *
     * @param bucket      the bucket
     * @param allowed     whether the call was allowed (and counted)
     * @param remaining   attempts left in the window after the call, clamped to 0..limit
     * @param resetMillis milliseconds until the window ends, clamped to 0..window
     * @return ALLOWED or DENIED
     */
    public static Verdict single(Bucket bucket, boolean allowed, long remaining, long resetMillis) {
        return single(bucket, allowed, remaining,
                Duration.ofMillis(clamp(resetMillis, bucket.limits().get(0).window().toMillis())));
    }

    /**
     * The verdict of a one-window bucket whose reset is already a {@link Duration}: for a store that keeps one per
     * window rather than allocating it per call ({@link MemoryRateLimiter}).
     *
     * @param bucket     the bucket
     * @param allowed    whether the call was allowed (and counted)
     * @param remaining  attempts left in the window after the call, clamped to 0..limit
     * @param resetAfter time until the window ends, from zero to the window's length
     * @return ALLOWED or DENIED
     */
    public static Verdict single(Bucket bucket, boolean allowed, long remaining, Duration resetAfter) {
        long limit = bucket.limit();
        return new Verdict(allowed ? Verdict.Outcome.ALLOWED : Verdict.Outcome.DENIED, limit, clamp(remaining, limit),
                resetAfter);
    }

    /**
     * The verdict of a bucket of any number of windows.
     *
     * @param bucket      the bucket
     * @param cost        the call's cost
     * @param allowed     whether the call was allowed (and counted in every window)
     * @param remaining   per window, in {@link Bucket#limits()} order: attempts left after the call
     * @param resetMillis per window: milliseconds until it ends (its whole length when it has not opened)
     * @return ALLOWED or DENIED, with {@link Verdict#windows()} when the bucket has several windows
     */
    public static Verdict of(Bucket bucket, long cost, boolean allowed, long[] remaining, long[] resetMillis) {
        if (!bucket.hasSeveralWindows()) {
            return single(bucket, allowed, remaining[0], resetMillis[0]);
        }
        int count = bucket.limits().size();
        Verdict.Window[] windows = new Verdict.Window[count];
        int top = -1;
        long needed = needed(cost);
        for (int i = 0; i < count; i++) {
            Limit limit = bucket.limits().get(i);
            windows[i] = new Verdict.Window(limit, clamp(remaining[i], limit.limit()),
                    Duration.ofMillis(clamp(resetMillis[i], limit.window().toMillis())));
            if (allowed) {
                if (top < 0 || windows[i].remaining() < windows[top].remaining()) {
                    top = i;
                }
            } else if (windows[i].remaining() < needed
                    && (top < 0 || windows[i].resetAfter().compareTo(windows[top].resetAfter()) >= 0)) {
                top = i;
            }
        }
        if (top < 0) {
            top = 0; // a refusal no window explains: a cost above every limit, which callers refuse first
        }
        Verdict.Window chosen = windows[top];
        return new Verdict(allowed ? Verdict.Outcome.ALLOWED : Verdict.Outcome.DENIED, chosen.limit().limit(),
                chosen.remaining(), chosen.resetAfter(), List.of(windows));
    }

    /**
     * The verdict of one item of a store's answer ({@link dev.ratelimiter.spi.RateLimitStore#consume}): its allowed
     * flag at {@code offset}, then each window's numbers ({@link StoreItem#answerLength}).
     *
     * @param bucket the item's bucket
     * @param cost   the item's cost
     * @param answer the store's answer
     * @param offset where the item's numbers start
     * @return ALLOWED or DENIED
     * @throws IllegalStateException if the answer is too short for the bucket's windows
     */
    public static Verdict fromCounts(Bucket bucket, long cost, long[] answer, int offset) {
        List<Limit> limits = bucket.limits();
        int length = StoreItem.answerLength(bucket);
        if (answer.length < offset + length) {
            throw new IllegalStateException("the store answered " + answer.length + " numbers; " + (offset + length)
                    + " expected for bucket " + bucket.name());
        }
        boolean allowed = answer[offset] == 1L;
        if (bucket.isTokenBucket()) {
            return tokensFromCounts(bucket, cost, allowed, answer, offset);
        }
        if (bucket.isSlidingWindow()) {
            if (limits.size() == 1) {
                return slidingSingle(bucket, cost, allowed, answer[offset + 1], answer[offset + 2], answer[offset + 3]);
            }
            int count = limits.size();
            long[] current = new long[count];
            long[] previous = new long[count];
            long[] endMillis = new long[count];
            for (int i = 0; i < count; i++) {
                current[i] = answer[offset + 1 + 3 * i];
                previous[i] = answer[offset + 2 + 3 * i];
                endMillis[i] = answer[offset + 3 + 3 * i];
            }
            return sliding(bucket, cost, allowed, current, previous, endMillis);
        }
        if (limits.size() == 1) {
            return single(bucket, allowed, limits.get(0).limit() - answer[offset + 1], answer[offset + 2]);
        }
        long[] remaining = new long[limits.size()];
        long[] resetMillis = new long[limits.size()];
        for (int i = 0; i < limits.size(); i++) {
            remaining[i] = limits.get(i).limit() - answer[offset + 1 + 2 * i];
            resetMillis[i] = answer[offset + 2 + 2 * i];
        }
        return of(bucket, cost, allowed, remaining, resetMillis);
    }

    private static Verdict tokensFromCounts(Bucket bucket, long cost, boolean allowed, long[] answer, int offset) {
        int count = bucket.limits().size();
        if (count == 1) {
            return tokenSingle(bucket, cost, allowed, capacity(bucket, 0) - answer[offset + 1], answer[offset + 2]);
        }
        long[] remaining = new long[count];
        long[] fullMillis = new long[count];
        for (int i = 0; i < count; i++) {
            remaining[i] = capacity(bucket, i) - answer[offset + 1 + 2 * i];
            fullMillis[i] = answer[offset + 2 + 2 * i];
        }
        return tokens(bucket, cost, allowed, remaining, fullMillis);
    }

    /**
     * The verdict of a one-window token bucket (docs/guide.md#token-buckets): {@code remaining} whole tokens left;
     * {@code resetAfter} the time until the bucket is full when allowed, and for a refusal the time until the same
     * call would be allowed (it then has the tokens it needs), at least a millisecond.
     *
     * @param bucket     a token bucket of one window
     * @param cost       the call's cost
     * @param allowed    whether the call was allowed (and took its tokens)
     * @param remaining  whole tokens left after the call, clamped to 0..capacity
     * @param fullMillis milliseconds until the bucket is full, rounded up, clamped to 0..the time it takes to fill
     * @return ALLOWED or DENIED
     */
    public static Verdict tokenSingle(Bucket bucket, long cost, boolean allowed, long remaining, long fullMillis) {
        return tokenSingle(bucket, cost, allowed, remaining, fullMillis, fillMillis(bucket, 0));
    }

    /**
     * {@link #tokenSingle(Bucket, long, boolean, long, long)} for a caller that knows the time the bucket takes to
     * fill ({@link MemoryRateLimiter}, which computes it once per key rather than dividing per call).
     *
     * @param fillMillis the milliseconds the bucket takes to fill from empty, rounded up
     * @return ALLOWED or DENIED
     */
    static Verdict tokenSingle(Bucket bucket, long cost, boolean allowed, long remaining, long fullMillis,
                               long fillMillis) {
        long full = clamp(fullMillis, fillMillis);
        return new Verdict(allowed ? Verdict.Outcome.ALLOWED : Verdict.Outcome.DENIED, bucket.limit(),
                clamp(remaining, capacity(bucket, 0)),
                Duration.ofMillis(allowed ? full : waitMillis(bucket, 0, cost, full)));
    }

    /**
     * The verdict of a token bucket of any number of windows (docs/guide.md#token-buckets): each window's whole
     * tokens left and time until full; the top-level values are, for a refusal, the refusing window whose tokens come
     * last (its {@code resetAfter} is when the same call would be allowed), else the window with the fewest tokens
     * left.
     *
     * @param bucket     a token bucket
     * @param cost       the call's cost
     * @param allowed    whether the call was allowed (and took its tokens in every window)
     * @param remaining  per window, in {@link Bucket#limits()} order: whole tokens left after the call
     * @param fullMillis per window: milliseconds until it is full, rounded up
     * @return ALLOWED or DENIED, with {@link Verdict#windows()} when the bucket has several windows
     */
    public static Verdict tokens(Bucket bucket, long cost, boolean allowed, long[] remaining, long[] fullMillis) {
        if (!bucket.hasSeveralWindows()) {
            return tokenSingle(bucket, cost, allowed, remaining[0], fullMillis[0]);
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
        return new Verdict(allowed ? Verdict.Outcome.ALLOWED : Verdict.Outcome.DENIED, chosen.limit().limit(),
                chosen.remaining(), allowed ? chosen.resetAfter() : Duration.ofMillis(topWait), List.of(windows));
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

    /**
     * The verdict of a sliding-window bucket (docs/guide.md#sliding-windows) from each window's state after the call:
     * {@code remaining} is the limit less the current count and the previous count's weighted part, rounded up;
     * {@code resetAfter}, for an allowed call, the time until every counted call has slid out (the whole limit is
     * back: the current window's end plus one window length while it counts anything), and for a refusal the time
     * until the same call would be allowed, at least a millisecond, which may lie beyond the current window's end.
     * With several windows, the top-level values are those of the refusing window that allows the call last, else of
     * the window with the fewest attempts left.
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
    public static Verdict sliding(Bucket bucket, long cost, boolean allowed, long[] current, long[] previous,
                                  long[] endMillis) {
        if (!bucket.hasSeveralWindows()) {
            return slidingSingle(bucket, cost, allowed, current[0], previous[0], endMillis[0]);
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
            windows[i] = new Verdict.Window(limit, slidingRemaining(limit.limit(), windowMillis, cur, prev, end),
                    Duration.ofMillis(slidingEmptyMillis(windowMillis, cur, prev, end)));
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
        return new Verdict(allowed ? Verdict.Outcome.ALLOWED : Verdict.Outcome.DENIED, chosen.limit().limit(),
                chosen.remaining(), allowed ? chosen.resetAfter() : Duration.ofMillis(topWait), List.of(windows));
    }

    /**
     * {@link #sliding} for a bucket of one window, without arrays.
     *
     * @param bucket    a sliding-window bucket of one window
     * @param cost      the call's cost
     * @param allowed   whether the call was allowed (and counted)
     * @param current   the current window's count after the call
     * @param previous  the previous window's count
     * @param endMillis milliseconds until the current window ends, 1 to the window's length
     * @return ALLOWED or DENIED
     */
    public static Verdict slidingSingle(Bucket bucket, long cost, boolean allowed, long current, long previous,
                                        long endMillis) {
        return slidingSingle(bucket, cost, allowed, current, previous, endMillis, Duration::ofMillis);
    }

    /**
     * {@link #slidingSingle(Bucket, long, boolean, long, long, long)} with the verdict's {@code resetAfter} from
     * {@code durations}: for a store that keeps the last one rather than allocating one per call
     * ({@link MemoryRateLimiter}).
     */
    static Verdict slidingSingle(Bucket bucket, long cost, boolean allowed, long current, long previous,
                                 long endMillis, java.util.function.LongFunction<Duration> durations) {
        Limit limit = bucket.limits().get(0);
        long windowMillis = limit.window().toMillis();
        long cur = Math.max(0, current);
        long prev = Math.max(0, previous);
        long end = Math.max(1, Math.min(endMillis, windowMillis));
        long remaining = slidingRemaining(limit.limit(), windowMillis, cur, prev, end);
        long reset = allowed ? slidingEmptyMillis(windowMillis, cur, prev, end)
                : Math.max(1, SlidingWindow.waitMillis(limit.limit(), windowMillis, cur, prev, end, needed(cost)));
        return new Verdict(allowed ? Verdict.Outcome.ALLOWED : Verdict.Outcome.DENIED, limit.limit(), remaining,
                durations.apply(reset));
    }

    /** Attempts left in a sliding window: the limit less the current count and the previous one's weight, rounded up. */
    private static long slidingRemaining(long limit, long windowMillis, long cur, long prev, long end) {
        return clamp(limit - cur - (long) Math.ceil(SlidingWindow.weighted(prev, end, windowMillis)), limit);
    }

    /**
     * The refund of a call this verdict allowed and counted, {@code elapsedMillis} after the call was decided
     * (docs/guide.md#counting-failures-only): each window's end as the verdict gave it, less the time since. A fixed
     * window's {@code resetAfter} is its end; an allowed sliding window's is its current window's end plus a window
     * length, since it counted the call; a token bucket names no window. A window that has ended by then gets 0: it
     * is left alone.
     *
     * @param bucket        the bucket the verdict is of
     * @param key           the hashed key it counted
     * @param cost          the call's cost, 1 or more
     * @param verdict       the {@code ALLOWED} verdict that counted it
     * @param elapsedMillis milliseconds since the call was decided (counted from before the decision), 0 or more
     * @return the refund to hand to a {@link RefundingLimiter}
     */
    public static StoreRefund refund(Bucket bucket, String key, long cost, Verdict verdict, long elapsedMillis) {
        int count = bucket.limits().size();
        long[] endsIn = new long[count];
        if (!bucket.isTokenBucket()) {
            for (int i = 0; i < count; i++) {
                Duration resetAfter = count == 1 ? verdict.resetAfter()
                        : verdict.windows().size() == count ? verdict.windows().get(i).resetAfter() : Duration.ZERO;
                long end = resetAfter.toMillis() - (bucket.isSlidingWindow()
                        ? bucket.limits().get(i).window().toMillis() : 0);
                endsIn[i] = Math.max(0, end - Math.max(0, elapsedMillis));
            }
        }
        return new StoreRefund(bucket, key, cost, endsIn);
    }

    /**
     * The verdict a call's RateLimit headers report once its cost was given back
     * (docs/guide.md#counting-failures-only): each window's {@code remaining} raised by the cost, up to its
     * capacity, its times as they were.
     *
     * @param bucket  the verdict's bucket
     * @param verdict the {@code ALLOWED} verdict that counted the call
     * @param cost    the cost given back
     * @return the verdict with the cost back
     */
    public static Verdict givenBack(Bucket bucket, Verdict verdict, long cost) {
        List<Verdict.Window> windows = verdict.windows();
        if (windows.isEmpty()) {
            return new Verdict(verdict.outcome(), verdict.limit(), Math.min(verdict.remaining() + cost,
                    capacity(bucket, 0)), verdict.resetAfter());
        }
        Verdict.Window[] back = new Verdict.Window[windows.size()];
        long fewest = Long.MAX_VALUE; // the top-level values are the window with the fewest left, as before
        for (int i = 0; i < back.length; i++) {
            Verdict.Window window = windows.get(i);
            back[i] = new Verdict.Window(window.limit(), Math.min(capacity(bucket, i), window.remaining() + cost),
                    window.resetAfter());
            fewest = Math.min(fewest, back[i].remaining());
        }
        return new Verdict(verdict.outcome(), verdict.limit(), fewest, verdict.resetAfter(), List.of(back));
    }

    /** Milliseconds until a sliding window holds nothing: until its current window ends, plus W if that counts. */
    private static long slidingEmptyMillis(long windowMillis, long cur, long prev, long end) {
        return cur > 0 ? end + windowMillis : prev > 0 ? end : 0;
    }

    /**
     * An allowed verdict that counted nothing: every window with its whole limit left and its whole length to run
     * (the kill switch, a fail-open outage).
     *
     * @param bucket the bucket
     * @return ALLOWED, with {@link Verdict#windows()} when the bucket has several windows
     */
    public static Verdict untouched(Bucket bucket) {
        if (bucket.isSlidingWindow()) {
            int count = bucket.limits().size();
            long[] endMillis = new long[count];
            for (int i = 0; i < count; i++) {
                endMillis[i] = bucket.limits().get(i).window().toMillis();
            }
            return sliding(bucket, 0, true, new long[count], new long[count], endMillis);
        }
        if (bucket.isTokenBucket()) {
            int count = bucket.limits().size();
            long[] remaining = new long[count];
            for (int i = 0; i < count; i++) {
                remaining[i] = capacity(bucket, i);
            }
            return tokens(bucket, 0, true, remaining, new long[count]);
        }
        if (!bucket.hasSeveralWindows()) {
            return Verdict.allowed(bucket.limit(), bucket.limit(), bucket.window());
        }
        int count = bucket.limits().size();
        long[] remaining = new long[count];
        long[] resetMillis = new long[count];
        for (int i = 0; i < count; i++) {
            remaining[i] = bucket.limits().get(i).limit();
            resetMillis[i] = bucket.limits().get(i).window().toMillis();
        }
        return of(bucket, 0, true, remaining, resetMillis);
    }

    private static long clamp(long value, long max) {
        return Math.max(0, Math.min(value, max));
    }
}
