package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.internal.core.verdict.FixedWindows;

/**
 * One key's counters of a bucket of several windows: each window's count and end, read and written under this
 * object's lock, so the windows are decided together (docs/guide.md#several-windows-per-bucket).
 */
final class LockedFixedWindows extends LockedState {
    private final long[] windowMillis;
    private final long[] counts;
    private final long[] endsAt;

    LockedFixedWindows(Bucket bucket) {
        int size = bucket.limits().size();
        windowMillis = new long[size];
        counts = new long[size];
        endsAt = new long[size];
        for (int i = 0; i < size; i++) {
            windowMillis[i] = bucket.limits().get(i).window().toMillis();
            endsAt[i] = Long.MIN_VALUE; // not opened: the first counted call opens it
        }
    }

    @Override
    boolean matches(Bucket bucket) {
        if (bucket.algorithm() != Algorithm.FIXED_WINDOW || bucket.limits().size() != windowMillis.length) {
            return false;
        }
        for (int i = 0; i < windowMillis.length; i++) {
            if (bucket.limits().get(i).window().toMillis() != windowMillis[i]) {
                return false;
            }
        }
        return true;
    }

    /** All windows allow the cost, or nothing changes. */
    @Override
    Verdict decideLocked(Bucket bucket, long cost, long now) {
        int size = windowMillis.length;
        long[] remaining = new long[size];
        long[] resetMillis = new long[size];
        long needed = Verdicts.needed(cost);
        boolean allowed = true;
        for (int i = 0; i < size; i++) {
            boolean open = now < endsAt[i];
            long count = open ? counts[i] : 0;
            remaining[i] = bucket.limits().get(i).limit() - count;
            resetMillis[i] = open ? endsAt[i] - now : windowMillis[i];
            allowed &= count + needed <= bucket.limits().get(i).limit();
        }
        if (allowed && cost > 0) {
            for (int i = 0; i < size; i++) {
                if (now >= endsAt[i]) {
                    endsAt[i] = now + windowMillis[i];
                    counts[i] = 0;
                }
                counts[i] += cost;
                remaining[i] -= cost;
            }
        }
        return FixedWindows.of(bucket, cost, allowed, remaining, resetMillis);
    }

    @Override
    void refundLocked(Bucket bucket, long cost, long[] endsIn, long now) {
        for (int i = 0; i < counts.length; i++) {
            if (StoreRefund.sameWindow(endsIn[i], endsAt[i] - now, windowMillis[i])) {
                counts[i] = Math.max(0, counts[i] - cost);
            }
        }
    }

    /** Each window counts what the store's did (its limit less what was left) until the store's window ends. */
    @Override
    void carryLocked(Bucket bucket, Verdict verdict, long now) {
        for (int i = 0; i < counts.length; i++) {
            Verdict.Window window = verdict.windows().get(i);
            counts[i] = Math.max(0, window.limit().limit() - window.remaining());
            endsAt[i] = counts[i] == 0 ? Long.MIN_VALUE : now + window.resetAfter().toMillis();
        }
    }

    @Override
    boolean ended(long now) {
        for (long end : endsAt) {
            if (now < end) {
                return false;
            }
        }
        return true;
    }

    /**
     * Fixed windows of other lengths: each window of a length this state had keeps its count and end; a window
     * of a new length opens at its first counted call, as Valkey's keys, named by length, do
     * (docs/stores.md#counters-across-a-change-of-settings).
     */
    @Override
    KeyState reshapedLocked(Bucket bucket) {
        if (bucket.algorithm() != Algorithm.FIXED_WINDOW || !bucket.hasSeveralWindows()) {
            return null;
        }
        LockedFixedWindows next = new LockedFixedWindows(bucket);
        for (int i = 0; i < next.windowMillis.length; i++) {
            for (int j = 0; j < windowMillis.length; j++) {
                if (windowMillis[j] == next.windowMillis[i]) {
                    next.counts[i] = counts[j];
                    next.endsAt[i] = endsAt[j];
                }
            }
        }
        return next;
    }
}
