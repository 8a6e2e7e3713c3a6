package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

import static dev.ratelimiter.spi.TokenBucketTiming.capacity;

/**
 * The fallback's carry (docs/operations.md#what-the-fallback-knows): how a shared store's verdict for a key becomes
 * the key's state here, so that the in-memory limiter, as the store's fallback, goes on from what the store last said
 * rather than from nothing. {@link MemoryRateLimiter#carry} says what is carried; this class holds the rules its
 * states share: which verdicts are taken, when one window is the one already held, and a sliding window's span.
 */
final class Carry {
    // The same window as the one a key holds: the store's resetAfter moves by a millisecond or two between calls; a
    // new window ends at least a second later.
    private static final long SAME_WINDOW_MILLIS = 500;

    private Carry() {
    }

    /** Whether a verdict can be taken for the bucket: a bucket of several windows needs every window's state. */
    static boolean fits(Bucket bucket, Verdict verdict) {
        int size = bucket.limits().size();
        return size == 1 || verdict.windows().size() == size;
    }

    /** Whether a verdict says nothing is counted: every window with its whole capacity left. */
    static boolean countsNothing(Bucket bucket, Verdict verdict) {
        if (!bucket.hasSeveralWindows()) {
            return verdict.remaining() >= capacity(bucket, 0);
        }
        for (int i = 0; i < verdict.windows().size(); i++) {
            if (verdict.windows().get(i).remaining() < capacity(bucket, i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether a window ending at {@code endsAt} is the one held, which ends at {@code heldEndsAt}. */
    static boolean sameWindow(long heldEndsAt, long endsAt) {
        return Math.abs(heldEndsAt - endsAt) < SAME_WINDOW_MILLIS;
    }

    /**
     * Takes the verdict as the key's state, made if missing; a new key beyond the bucket's cap is not carried (the
     * memory stays bounded, and nothing is refused for it).
     */
    static void into(KeyTable keys, Bucket bucket, String key, Verdict verdict, long now) {
        if (bucket.algorithm() == Algorithm.FIXED_WINDOW && !bucket.hasSeveralWindows()) {
            fixedWindow(keys, key, bucket.limit() - verdict.remaining(), now + verdict.resetAfter().toMillis(), now);
            return;
        }
        while (true) {
            KeyState state = keys.state(key, bucket, now);
            if (state == null || state.carry(bucket, verdict, now)) {
                return; // a new key beyond the cap is not carried
            }
        }
    }

    /** A one-window fixed window: {@code count} until {@code endsAt}, in the key's {@link FixedWindowCell}. */
    private static void fixedWindow(KeyTable keys, String key, long count, long endsAt, long now) {
        while (true) {
            KeyState state = keys.get(key);
            if (state == null) {
                if (!keys.reserve(now)) {
                    return;
                }
                if (keys.putIfAbsent(key, new FixedWindowCell(new FixedWindow(endsAt, count))) == null) {
                    return;
                }
                keys.release();
                continue;
            }
            if (!(state instanceof FixedWindowCell cell)) {
                keys.retire(key, state);
                continue;
            }
            if (cell.carry(count, endsAt)) {
                return;
            }
        }
    }

    /**
     * A sliding window's span that holds what a shared store's verdict said was counted ({@code limit - remaining}),
     * so that it slides out when the store's does, {@code outMillis} from {@code now} (at most two window lengths):
     * beyond one window length, as the current window's count, its end {@code outMillis} less a window away; within
     * one, as the previous window's count weighted by that time; nothing counted, no window
     * ({@link SlidingSpan#NONE}). One rule for both sliding states ({@link SlidingWindowCell},
     * {@link LockedSlidingWindows}). When {@code held} is that same window ({@link #sameWindow}, the same previous count,
     * not sealed), its count is set in place and {@code held} returned: no allocation for a key decided again and
     * again in one window.
     *
     * @param held the span a {@link SlidingWindowCell} holds, or {@code null}
     * @return {@code held}, {@link SlidingSpan#NONE} or a new span
     */
    static SlidingSpan slidingSpan(long limit, long windowMillis, long remaining, long outMillis, long now,
                                   SlidingSpan held) {
        long counted = Math.max(0, limit - remaining);
        long out = Math.min(outMillis, 2 * windowMillis);
        if (counted == 0 || out <= 0) {
            return SlidingSpan.NONE;
        }
        boolean current = out > windowMillis;
        long endsAt = current ? now + out - windowMillis : now + out;
        long previous = current ? 0 : Math.min(limit, (long) Math.ceil((double) counted * windowMillis / out));
        long count = current ? counted : 0;
        if (held != null && held != SlidingSpan.NONE && held != SlidingSpan.RETIRED && held.previous == previous
                && sameWindow(held.endsAt, endsAt)) {
            long was = held.count();
            if (was >= 0 && held.replaceCount(was, count)) {
                return held;
            }
        }
        return new SlidingSpan(endsAt, previous, count);
    }
}
