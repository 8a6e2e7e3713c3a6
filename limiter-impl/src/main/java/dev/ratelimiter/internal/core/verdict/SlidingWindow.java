package dev.ratelimiter.internal.core.verdict;

import java.math.BigInteger;

/**
 * The sliding window counter's arithmetic (docs/guide.md#sliding-windows), the one every store's decision and every
 * verdict follows ({@link dev.ratelimiter.spi.RateLimitStore}): a window of W milliseconds whose current window counted
 * {@code cur}, whose previous one counted {@code prev}, and whose current window ends in r milliseconds (1 ≤ r ≤ W)
 * holds an estimated {@code cur + prev × r / W} attempts, the previous window weighted by the part of it still
 * inside one window length back.
 */
public final class SlidingWindow {

    private SlidingWindow() {
    }

    /**
     * The previous window's weighted count, {@code prev × r / W}, in IEEE 754 double precision in that order, as the
     * Lua script and the SQL function compute it, so every store decides alike.
     *
     * @param previous     the previous window's count, not negative
     * @param endMillis    milliseconds until the current window ends, r
     * @param windowMillis the window's length W in milliseconds, at least 1 000
     * @return the weighted count, from 0 to {@code previous}
     */
    public static double weighted(long previous, long endMillis, long windowMillis) {
        return (double) previous * endMillis / windowMillis;
    }

    /**
     * Whether a call needing {@code needed} attempts fits the window now: {@code prev × r / W ≤ limit − cur − needed}.
     *
     * @param limit        the window's limit
     * @param windowMillis W
     * @param current      the current window's count
     * @param previous     the previous window's count
     * @param endMillis    r
     * @param needed       the attempts the call needs, at least 1
     * @return whether the call is allowed by this window
     */
    public static boolean fits(long limit, long windowMillis, long current, long previous, long endMillis,
                               long needed) {
        return fits(weighted(previous, endMillis, windowMillis), limit, current, needed);
    }

    /**
     * {@link #fits(long, long, long, long, long, long)} with the previous count's weight computed already: for a
     * store that weighs before it reads the current count (the in-memory store, whose count another thread may
     * change meanwhile, while the weight depends only on the previous count and the time).
     *
     * @param weighted {@link #weighted} of the previous count
     * @param limit    the window's limit
     * @param current  the current window's count
     * @param needed   the attempts the call needs, at least 1
     * @return whether the call is allowed by this window
     */
    public static boolean fits(double weighted, long limit, long current, long needed) {
        return weighted <= limit - current - needed;
    }

    /**
     * Milliseconds until a call needing {@code needed} attempts fits, if nothing else is counted meanwhile: 0 if it
     * fits now; while the current count leaves room for it, the moment the previous window's weight has fallen
     * enough; else a moment of the next window, when the current count, then the previous one, has slid out enough
     * (so at most r + W).
     *
     * @param limit        the window's limit, at least {@code needed}
     * @param windowMillis W
     * @param current      the current window's count, at most the limit
     * @param previous     the previous window's count
     * @param endMillis    r, from 1 to W
     * @param needed       the attempts the call needs, from 1 to the limit
     * @return milliseconds, from 0 to r + W
     */
    public static long waitMillis(long limit, long windowMillis, long current, long previous, long endMillis,
                                  long needed) {
        if (fits(limit, windowMillis, current, previous, endMillis, needed)) {
            return 0;
        }
        if (needed > limit) {
            return endMillis + windowMillis; // never: callers refuse such a cost before asking
        }
        long room = limit - current - needed;
        if (room >= 0) {
            // prev × r' / W ≤ room once r' (the current window's time left) is at most room × W / prev.
            long latest = latestFit(floorMulDiv(room, windowMillis, previous), endMillis - 1, limit, windowMillis,
                    current, previous, needed);
            if (latest > 0) {
                return endMillis - latest;
            }
        }
        // In the next window the current count becomes the previous one: cur × r'' / W ≤ limit − needed.
        long latest = current == 0 ? windowMillis : latestFit(Math.min(windowMillis, floorMulDiv(limit - needed,
                windowMillis, current)), windowMillis, limit, windowMillis, 0, current, needed);
        return endMillis + windowMillis - Math.max(0, latest);
    }

    /**
     * The latest time left r, at most {@code most}, at which the call fits by {@link #fits}'s rule, from the exact
     * bound {@code exact}: the rule is IEEE 754 arithmetic, every store's, which can round prev × r across the exact
     * bound for the largest limits and windows (by a millisecond at most), so the bound is stepped to where the rule
     * turns.
     */
    private static long latestFit(long exact, long most, long limit, long windowMillis, long current, long previous,
                                  long needed) {
        long latest = Math.min(exact, most);
        while (latest > 0 && !fits(limit, windowMillis, current, previous, latest, needed)) {
            latest--;
        }
        while (latest < most && fits(limit, windowMillis, current, previous, latest + 1, needed)) {
            latest++;
        }
        return latest;
    }

    /** ⌊a × b / c⌋ for non-negative a and b and positive c, exact even where a × b overflows a {@code long}. */
    private static long floorMulDiv(long a, long b, long c) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        if (high == 0 && low >= 0) {
            return low / c;
        }
        return BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divide(BigInteger.valueOf(c)).longValue();
    }
}
