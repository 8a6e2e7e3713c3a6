package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.verdict.SlidingWindow;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.internal.core.verdict.SlidingWindows;

/**
 * One key's sliding window counters of a bucket of several windows (docs/guide.md#sliding-windows; one window is
 * a {@link SlidingWindowCell}): each window's current count, previous count and current end (epoch milliseconds).
 * Windows follow one another from the first counted call, so a window that ended is followed by the one it ended
 * into; a key idle for two window lengths counts nothing. Read and written under this object's lock.
 */
final class LockedSlidingWindows extends LockedState {
    private final long[] windowMillis;
    private final long[] current;
    private final long[] previous;
    private final long[] endsAt;

    LockedSlidingWindows(Bucket bucket) {
        int size = bucket.limits().size();
        windowMillis = new long[size];
        current = new long[size];
        previous = new long[size];
        endsAt = new long[size];
        for (int i = 0; i < size; i++) {
            windowMillis[i] = bucket.limits().get(i).window().toMillis();
            endsAt[i] = SlidingSpan.NO_WINDOW;
        }
    }

    @Override
    boolean matches(Bucket bucket) {
        if (!bucket.isSlidingWindow() || bucket.limits().size() != windowMillis.length) {
            return false;
        }
        for (int i = 0; i < windowMillis.length; i++) {
            if (bucket.limits().get(i).window().toMillis() != windowMillis[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Moves window {@code i} on to the window open at {@code now}: the current count becomes the previous. With
     * nothing left to weigh, a window opens now, as at a key's first call (it counts nothing until a call is
     * counted, and is then this call's window, as a store's first write opens it).
     */
    private void roll(int i, long now) {
        if (now < endsAt[i]) {
            return;
        }
        long w = windowMillis[i];
        if (now < endsAt[i] + w && current[i] > 0) {
            previous[i] = current[i];
            endsAt[i] += w;
        } else {
            previous[i] = 0;
            endsAt[i] = now + w;
        }
        current[i] = 0;
    }

    /**
     * Milliseconds until window {@code i} ends, at most its length: a call whose clock read came before another
     * call's roll sees the window that roll opened.
     */
    private long end(int i, long now) {
        return Math.min(endsAt[i] - now, windowMillis[i]);
    }

    /** Every window has room for the cost, or nothing changes. */
    @Override
    Verdict decideLocked(Bucket bucket, long cost, long now) {
        int size = windowMillis.length;
        long needed = Verdicts.needed(cost);
        boolean allowed = true;
        for (int i = 0; i < size; i++) {
            roll(i, now);
            allowed &= SlidingWindow.fits(bucket.limits().get(i).limit(), windowMillis[i], current[i], previous[i],
                    end(i, now), needed);
        }
        if (allowed && cost > 0) {
            for (int i = 0; i < size; i++) {
                current[i] += cost;
            }
        }
        long[] end = new long[size];
        for (int i = 0; i < size; i++) {
            end[i] = end(i, now);
        }
        Verdict verdict = SlidingWindows.of(bucket, cost, allowed, current, previous, end);
        for (int i = 0; i < size; i++) {
            if (current[i] == 0 && previous[i] == 0) {
                endsAt[i] = SlidingSpan.NO_WINDOW; // a call that counted nothing opens no window
            }
        }
        return verdict;
    }

    /** The current window's count, where it is the one the refund names; a previous count is never touched. */
    @Override
    void refundLocked(Bucket bucket, long cost, long[] endsIn, long now) {
        for (int i = 0; i < current.length; i++) {
            if (StoreRefund.sameWindow(endsIn[i], endsAt[i] - now, windowMillis[i])) {
                current[i] = Math.max(0, current[i] - cost);
            }
        }
    }

    /** Each window as {@link Carry#slidingSpan} takes the store's window (every window's time until all slid out). */
    @Override
    void carryLocked(Bucket bucket, Verdict verdict, long now) {
        for (int i = 0; i < windowMillis.length; i++) {
            Verdict.Window window = verdict.windows().get(i);
            SlidingSpan carried = Carry.slidingSpan(window.limit().limit(), windowMillis[i], window.remaining(),
                    window.resetAfter().toMillis(), now, null);
            current[i] = carried.countOrSealed();
            previous[i] = carried.previous;
            endsAt[i] = carried.endsAt;
        }
    }

    @Override
    boolean ended(long now) {
        for (int i = 0; i < endsAt.length; i++) {
            if (now < endsAt[i] + windowMillis[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Sliding windows of other lengths: each window of a length this state had keeps its counts and end; a window
     * of a new length starts with nothing to weigh, as Valkey's keys, named by length, do
     * (docs/stores.md#counters-across-a-change-of-settings).
     */
    @Override
    KeyState reshapedLocked(Bucket bucket) {
        if (!bucket.isSlidingWindow() || !bucket.hasSeveralWindows()) {
            return null;
        }
        LockedSlidingWindows next = new LockedSlidingWindows(bucket);
        for (int i = 0; i < next.windowMillis.length; i++) {
            for (int j = 0; j < windowMillis.length; j++) {
                if (windowMillis[j] == next.windowMillis[i]) {
                    next.current[i] = current[j];
                    next.previous[i] = previous[j];
                    next.endsAt[i] = endsAt[j];
                }
            }
        }
        return next;
    }
}
