package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.verdict.SlidingWindow;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.internal.core.verdict.SlidingWindows;

/**
 * One key's sliding window of a one-window bucket, without a lock: its current span (the window now open, with
 * the previous window's count) is replaced by compare-and-set when the window rolls on, and its count grows in
 * place by compare-and-set only when the call fits, as a fixed window's {@link FixedWindowCell} does. Before a span is
 * replaced by the next one, its count is sealed, so that no call is counted in it after its count became the
 * next span's previous count.
 */
final class SlidingWindowCell extends LockFreeCell<SlidingSpan> {
    private final Bucket shape;
    private final long windowMillis;
    // The longest window length this key was decided under, so the sweep keeps it while anything weighs.
    private volatile long longestMillis;

    SlidingWindowCell(Bucket bucket) {
        super(SlidingSpan.NONE);
        shape = bucket;
        windowMillis = bucket.window().toMillis();
        longestMillis = windowMillis;
    }

    /**
     * Any sliding window of one window: its counts carry under another limit or window length of its name (a
     * plan, or settings changed; docs/stores.md#counters-across-a-change-of-settings).
     */
    @Override
    boolean matches(Bucket bucket) {
        return bucket == shape || bucket.isSlidingWindow() && !bucket.hasSeveralWindows();
    }

    @Override
    SlidingSpan retired() {
        return SlidingSpan.RETIRED;
    }

    @Override
    boolean ended(SlidingSpan span, long now) {
        return now >= span.endsAt + longestMillis;
    }

    /** The window length of {@code bucket}, noted when it is longer than any this key was decided under. */
    private long windowOf(Bucket bucket) {
        if (bucket == shape) {
            return windowMillis;
        }
        long millis = bucket.window().toMillis();
        if (millis > longestMillis) {
            synchronized (this) { // only when the settings changed: a lock rather than one more VarHandle
                longestMillis = Math.max(longestMillis, millis);
            }
        }
        return millis;
    }

    /**
     * Decided under the call's bucket's limit and window: a plan (docs/plans.md) changes the limit; changed
     * settings may change the window, whose current span then ends within the new length, its counts kept
     * (docs/stores.md#counters-across-a-change-of-settings).
     */
    @Override
    Verdict decide(Bucket bucket, long cost, long now) {
        long limit = bucket.limit();
        long windowMillis = windowOf(bucket);
        long needed = Verdicts.needed(cost);
        while (true) {
            SlidingSpan current = held();
            if (current == SlidingSpan.RETIRED) {
                return null;
            }
            if (current.endsAt - now > windowMillis) {
                // Opened under a longer window: sealed and replaced by a span ending within this length, with
                // its counts. (A call whose clock read came a few milliseconds before another's opened the span
                // ends it those milliseconds sooner: never later than said.)
                long count = current.seal();
                replace(current, new SlidingSpan(now + windowMillis, current.previous, count));
                continue;
            }
            if (now >= current.endsAt) {
                // Sealed right before it is replaced, so a thread that finds it sealed soon finds its successor.
                if (now < current.endsAt + windowMillis && current.countOrSealed() > 0) {
                    replace(current, new SlidingSpan(current.endsAt + windowMillis, current.seal(), 0));
                    continue; // the window the previous one ended into, whose weight its count now has
                }
                // Nothing left to weigh: a counted call opens a window now, with a phase of its own.
                if (cost == 0 || needed > limit) {
                    return SlidingWindows.single(bucket, cost, cost == 0 && needed <= limit, 0, 0,
                            windowMillis);
                }
                if (current != SlidingSpan.NONE) {
                    current.seal(); // the shared NONE counts nothing and is never added to
                }
                if (replace(current, new SlidingSpan(now + windowMillis, 0, cost))) {
                    return SlidingWindows.single(bucket, cost, true, cost, 0, windowMillis);
                }
                continue;
            }
            // At most a window: a thread whose clock read came before another's roll sees the next window.
            long end = Math.min(current.endsAt - now, windowMillis);
            // Weighed before the count is read: the weight depends on the span and the time only, so its division
            // stays out of the moment between reading the count and adding to it (where another thread's add makes
            // this one go round again), and is made once, for the decision and the verdict both.
            double weighted = SlidingWindow.weighted(current.previous, end, windowMillis);
            long count = current.count();
            if (count < 0) {
                Thread.onSpinWait(); // sealed by a thread rolling it on, whose next span comes at once
                continue;
            }
            if (!SlidingWindow.fits(weighted, limit, count, needed)) {
                return SlidingWindows.single(bucket, cost, false, count, current.previous, end);
            }
            if (cost == 0 || current.add(count, cost)) {
                return SlidingWindows.allowedSingle(limit, windowMillis, count + cost, current.previous, end,
                        weighted, current);
            }
        }
    }

    /**
     * Lowers the open span's count, where it is the window the refund names, never below 0, or raises it by a
     * debit's. A span being
     * rolled on (sealed) is waited for: its successor ends a window later, so it is left alone.
     */
    @Override
    boolean refund(Bucket bucket, long cost, long[] endsIn, long now) {
        long windowMillis = windowOf(bucket);
        while (true) {
            SlidingSpan current = held();
            if (current == SlidingSpan.RETIRED) {
                return false;
            }
            if (!StoreRefund.sameWindow(endsIn[0], current.endsAt - now, windowMillis)) {
                return true;
            }
            long count = current.count();
            if (count < 0) {
                Thread.onSpinWait();
                continue;
            }
            if (cost > 0 && count == 0 || current.add(count, -Math.min(cost, count))) {
                return true;
            }
        }
    }

    /**
     * The store's window as {@link Carry#slidingSpan} takes it; a refusal's {@code resetAfter} is when the refused call
     * fits, not when all has slid out, so one window length more is taken for it.
     */
    @Override
    boolean carry(Bucket bucket, Verdict verdict, long now) {
        long windowMillis = windowOf(bucket);
        long outMillis = verdict.resetAfter().toMillis()
                + (verdict.outcome() == Verdict.Outcome.DENIED ? windowMillis : 0);
        while (true) {
            SlidingSpan current = held();
            if (current == SlidingSpan.RETIRED) {
                return false;
            }
            SlidingSpan next = Carry.slidingSpan(bucket.limit(), windowMillis, verdict.remaining(), outMillis, now,
                    current);
            if (next == current || replace(current, next)) {
                return true;
            }
        }
    }
}
