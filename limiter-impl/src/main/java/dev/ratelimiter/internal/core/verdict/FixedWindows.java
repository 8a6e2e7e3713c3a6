package dev.ratelimiter.internal.core.verdict;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreAnswers;

import java.time.Duration;
import java.util.List;

import static dev.ratelimiter.internal.core.verdict.Verdicts.clamp;
import static dev.ratelimiter.internal.core.verdict.Verdicts.outcome;

/**
 * A fixed-window bucket's verdict (docs/guide.md#fixed-windows) from each window's state after a decision: attempts
 * left and the time until the window ends; the Valkey script's {@code fixedWindows} decides it.
 */
public final class FixedWindows {

    private FixedWindows() {
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
                Duration.ofMillis(clamp(resetMillis, bucket.limits().get(0).longestMillis())));
    }

    /**
     * The verdict of a one-window bucket whose reset is already a {@link Duration}: for a store that keeps one per
     * window rather than allocating it per call (the in-memory store).
     *
     * @param bucket     the bucket
     * @param allowed    whether the call was allowed (and counted)
     * @param remaining  attempts left in the window after the call, clamped to 0..limit
     * @param resetAfter time until the window ends, from zero to the window's length
     * @return ALLOWED or DENIED
     */
    public static Verdict single(Bucket bucket, boolean allowed, long remaining, Duration resetAfter) {
        long limit = bucket.limit();
        return new Verdict(outcome(allowed), limit, clamp(remaining, limit), resetAfter);
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
        long needed = Verdicts.needed(cost);
        for (int i = 0; i < count; i++) {
            Limit limit = bucket.limits().get(i);
            windows[i] = new Verdict.Window(limit, clamp(remaining[i], limit.limit()),
                    Duration.ofMillis(clamp(resetMillis[i], limit.longestMillis())));
            if (allowed) {
                if (top < 0 || windows[i].remaining() < windows[top].remaining()) {
                    top = i;
                }
            } else if (windows[i].remaining() < needed
                    && (top < 0 || windows[i].resetAfter().compareTo(windows[top].resetAfter()) >= 0)) {
                top = i; // the refusing window that ends last: its reset is when the same call may pass
            }
        }
        if (top < 0) {
            top = 0; // a refusal no window explains: a cost above every limit, which callers refuse first
        }
        Verdict.Window chosen = windows[top];
        return new Verdict(outcome(allowed), chosen.limit().limit(), chosen.remaining(), chosen.resetAfter(),
                List.of(windows));
    }

    /** A fixed-window item of a store's answer, from {@code at} ({@link Verdicts#fromAnswer} checked its length). */
    static Verdict fromAnswer(Bucket bucket, long cost, boolean allowed, long[] answer, int at) {
        List<Limit> limits = bucket.limits();
        if (limits.size() == 1) {
            return single(bucket, allowed, limits.get(0).limit() - StoreAnswers.fixedCount(answer, at, 0),
                    StoreAnswers.fixedEndMillis(answer, at, 0));
        }
        long[] remaining = new long[limits.size()];
        long[] resetMillis = new long[limits.size()];
        for (int i = 0; i < limits.size(); i++) {
            remaining[i] = limits.get(i).limit() - StoreAnswers.fixedCount(answer, at, i);
            resetMillis[i] = StoreAnswers.fixedEndMillis(answer, at, i);
        }
        return of(bucket, cost, allowed, remaining, resetMillis);
    }

    /** Every window with its whole limit left and its whole length to run ({@link Verdicts#untouched}). */
    static Verdict untouched(Bucket bucket) {
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
}
