package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.internal.core.verdict.FixedWindows;

/**
 * One key's fixed window of a one-window bucket, without a lock: its current window is swapped by compare-and-set
 * when a window opens (the only allocation), and its count grows in place by compare-and-set only when the call's
 * cost fits, so a refused call changes nothing. The limiter calls it on this class, not through {@link KeyState}:
 * the hot path, an existing key of a one-window fixed window, makes no virtual call.
 */
final class FixedWindowCell extends LockFreeCell<FixedWindow> {

    FixedWindowCell(FixedWindow window) {
        super(window);
    }

    @Override
    FixedWindow retired() {
        return FixedWindow.RETIRED;
    }

    @Override
    boolean ended(FixedWindow window, long now) {
        return now >= window.endsAt;
    }

    /** A fixed window of one window: any limit and length of its name (the length is read at each call). */
    @Override
    boolean matches(Bucket bucket) {
        return bucket.algorithm() == Algorithm.FIXED_WINDOW && !bucket.hasSeveralWindows();
    }

    @Override
    Verdict decide(Bucket bucket, long cost, long now) {
        return decide(bucket, cost, now, bucket.window().toMillis());
    }

    /**
     * {@link #decide(Bucket, long, long)} where a window opened now lasts {@code windowMillis}: the bucket's length,
     * or the rest of a calendar window's period, which an open window of the same period also ends at.
     */
    Verdict decide(Bucket bucket, long cost, long now, long windowMillis) {
        long limit = bucket.limit();
        long needed = Verdicts.needed(cost);
        while (true) {
            FixedWindow window = held();
            if (window == FixedWindow.RETIRED) {
                return null; // swept or reset a moment ago: the next lookup finds a new cell or none
            }
            if (window.endsAt - now > windowMillis) {
                // Opened under a longer window of this name (its settings changed): it ends within this window's
                // length, its count kept (docs/stores.md#counters-across-a-change-of-settings).
                window.endNoLaterThan(now + windowMillis);
            }
            if (now >= window.endsAt) {
                if (cost == 0 || needed > limit) {
                    return MemoryRateLimiter.unopened(bucket, cost, windowMillis);
                }
                if (replace(window, new FixedWindow(now + windowMillis, cost))) {
                    return FixedWindows.single(bucket, true, limit - cost, windowMillis);
                }
                continue;
            }
            long count = window.count();
            if (count + needed > limit) {
                return FixedWindows.single(bucket, false, limit - count, window.resetAfter(now, windowMillis));
            }
            if (cost == 0 || window.add(count, cost)) {
                return FixedWindows.single(bucket, true, limit - count - cost, window.resetAfter(now, windowMillis));
            }
        }
    }

    /**
     * Lowers the count of the window the refund names by {@code cost}, never below 0, or raises it by a debit's;
     * false if retired. A window that ended or opened since is left alone.
     */
    @Override
    boolean refund(Bucket bucket, long cost, long[] endsIn, long now) {
        long windowMillis = bucket.window().toMillis();
        while (true) {
            FixedWindow current = held();
            if (current == FixedWindow.RETIRED) {
                return false;
            }
            if (!StoreRefund.sameWindow(endsIn[0], current.endsAt - now, windowMillis)) {
                return true;
            }
            long count = current.count();
            if (cost > 0 && count == 0 || current.add(count, -Math.min(cost, count))) {
                return true;
            }
        }
    }

    /** What the store's verdict said was counted, until the store's window ends ({@link #carry(long, long)}). */
    @Override
    boolean carry(Bucket bucket, Verdict verdict, long now) {
        return carry(bucket.limit() - verdict.remaining(), now + verdict.resetAfter().toMillis());
    }

    /**
     * Takes a shared store's window, {@code count} until {@code endsAt}: set in place when it is the window this cell
     * holds ({@link Carry#sameWindow}), so a key carried again and again in one window allocates nothing, else as a
     * new window; false if retired.
     */
    boolean carry(long count, long endsAt) {
        while (true) {
            FixedWindow window = held();
            if (window == FixedWindow.RETIRED) {
                return false;
            }
            if (Carry.sameWindow(window.endsAt, endsAt)) {
                window.set(count);
                return true;
            }
            if (replace(window, new FixedWindow(endsAt, count))) {
                return true;
            }
        }
    }
}
