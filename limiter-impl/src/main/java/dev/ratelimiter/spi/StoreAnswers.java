package dev.ratelimiter.spi;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;

/**
 * The layout of a store's answer ({@link RateLimitStore#consume}), read and written by name: the one place that
 * knows which index of the {@code long[]} holds which number, for the library and for a store alike. Static methods
 * over the caller's array, so reading or writing an answer allocates nothing.
 *
 * <p>An answer is the decided items' numbers one after another; an item's numbers start at its index {@code at} (0
 * for the first item, then the previous item's {@code at} plus its {@link #length}). Per item, for a bucket of n
 * windows in {@link Bucket#limits()} order (window {@code i} from 0 to n − 1):
 * <pre>
 * index                 fixed window                token bucket                  sliding window
 * at                    1 allowed (and counted), 0 refused — every algorithm
 * at + 1 + 2i           count after the call        tokens missing from full      (3 numbers per window:)
 * at + 2 + 2i           ms until the window ends    ms until full, rounded up
 * at + 1 + 3i                                                                     cur: current window's count
 * at + 2 + 3i                                                                     prev: previous window's count
 * at + 3 + 3i                                                                     r: ms until cur's window ends
 * </pre>
 * A fixed window not open for the key answers count 0 and its whole length; a full token bucket 0 and 0; a sliding
 * window without state 0, 0 and its whole length. Counts above the limit and times outside the window are clamped
 * by the library, not the store (docs/architecture.md#the-store-spi).
 */
public final class StoreAnswers {

    private StoreAnswers() {
    }

    /**
     * How many numbers an answer holds for one decided item of {@code bucket}.
     *
     * @param bucket the item's bucket
     * @return {@code 1 + 2 × windows}, or {@code 1 + 3 × windows} for a
     *         {@link Algorithm#SLIDING_WINDOW sliding window}
     */
    public static int length(Bucket bucket) {
        return 1 + width(bucket) * bucket.limits().size();
    }

    /** Numbers per window: 3 for a sliding window (cur, prev, r), else 2. */
    private static int width(Bucket bucket) {
        return bucket.isSlidingWindow() ? 3 : 2;
    }

    /**
     * Whether the item at {@code at} was allowed (and counted).
     *
     * @param answer the store's answer
     * @param at     the item's first index
     * @return true iff its flag is 1
     */
    public static boolean allowed(long[] answer, int at) {
        return answer[at] == 1L;
    }

    /**
     * Writes the item's flag: 1 if it was allowed (and counted), else 0.
     *
     * @param answer  the answer being written
     * @param at      the item's first index
     * @param allowed whether the item was allowed
     */
    public static void writeAllowed(long[] answer, int at, boolean allowed) {
        answer[at] = allowed ? 1 : 0;
    }

    /** A fixed window's count after the call, attempts (0 when none is open). */
    public static long fixedCount(long[] answer, int at, int window) {
        return answer[at + 1 + 2 * window];
    }

    /** Milliseconds until a fixed window ends (its whole length when none is open). */
    public static long fixedEndMillis(long[] answer, int at, int window) {
        return answer[at + 2 + 2 * window];
    }

    /**
     * Writes window {@code window} of a fixed-window item.
     *
     * @param count     attempts counted in the window after the call
     * @param endMillis milliseconds until it ends
     */
    public static void writeFixedWindow(long[] answer, int at, int window, long count, long endMillis) {
        answer[at + 1 + 2 * window] = count;
        answer[at + 2 + 2 * window] = endMillis;
    }

    /** A token bucket's tokens missing from full: its capacity less the whole tokens left. */
    public static long tokensMissing(long[] answer, int at, int window) {
        return answer[at + 1 + 2 * window];
    }

    /** Milliseconds until a token bucket is full, rounded up. */
    public static long tokensFullMillis(long[] answer, int at, int window) {
        return answer[at + 2 + 2 * window];
    }

    /**
     * Writes window {@code window} of a token-bucket item.
     *
     * @param missing    tokens missing from full (capacity less the whole tokens left)
     * @param fullMillis milliseconds until it is full, rounded up
     */
    public static void writeTokenBucket(long[] answer, int at, int window, long missing, long fullMillis) {
        answer[at + 1 + 2 * window] = missing;
        answer[at + 2 + 2 * window] = fullMillis;
    }

    /** A sliding window's {@code cur}: its current window's count after the call. */
    public static long slidingCurrent(long[] answer, int at, int window) {
        return answer[at + 1 + 3 * window];
    }

    /** A sliding window's {@code prev}: the count of the window before the current one. */
    public static long slidingPrevious(long[] answer, int at, int window) {
        return answer[at + 2 + 3 * window];
    }

    /** A sliding window's r: milliseconds until its current window ends, 1 to its length. */
    public static long slidingEndMillis(long[] answer, int at, int window) {
        return answer[at + 3 + 3 * window];
    }

    /**
     * Writes window {@code window} of a sliding-window item.
     *
     * @param current   its current window's count after the call
     * @param previous  the previous window's count
     * @param endMillis milliseconds until the current window ends
     */
    public static void writeSlidingWindow(long[] answer, int at, int window, long current, long previous,
                                          long endMillis) {
        answer[at + 1 + 3 * window] = current;
        answer[at + 2 + 3 * window] = previous;
        answer[at + 3 + 3 * window] = endMillis;
    }
}
