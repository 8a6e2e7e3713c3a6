package dev.ratelimiter.internal.core.memory;

/**
 * The window a {@link SlidingWindowCell} has open: when it ends (epoch milliseconds), the previous window's count,
 * and its own count, which grows by compare-and-set and is sealed (made negative, for good) before the next span
 * takes it as its previous count. {@link LockedSlidingWindows} reads a carried span ({@link Carry#slidingSpan}) the same
 * way.
 */
final class SlidingSpan extends OpenWindow {
    /** A sliding window's end when it has none: two lengths before any instant of this era, so nothing weighs. */
    static final long NO_WINDOW = Long.MIN_VALUE / 2;
    static final SlidingSpan NONE = new SlidingSpan(NO_WINDOW, 0, 0);
    static final SlidingSpan RETIRED = new SlidingSpan(NO_WINDOW, 0, 0);
    private static final long SEALED = Long.MIN_VALUE;

    final long endsAt;
    final long previous;

    SlidingSpan(long endsAt, long previous, long count) {
        super(count);
        this.endsAt = endsAt;
        this.previous = previous;
    }

    /** The count, sealed or not. */
    long countOrSealed() {
        long current = count();
        return current < 0 ? current - SEALED : current;
    }

    /** Seals the count, so nothing more is added to it; the count it was sealed at. */
    long seal() {
        while (true) {
            long current = count();
            if (current < 0) {
                return current - SEALED;
            }
            if (add(current, SEALED)) {
                return current;
            }
        }
    }
}
