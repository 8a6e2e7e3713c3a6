package dev.ratelimiter.internal.core.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/** The window a {@link FixedWindowCell} has open: when it ends (epoch milliseconds), and its count. */
final class FixedWindow extends OpenWindow {
    static final FixedWindow RETIRED = new FixedWindow(Long.MIN_VALUE, 0);
    private static final VarHandle ENDS_AT;

    static {
        try {
            ENDS_AT = MethodHandles.lookup().findVarHandle(FixedWindow.class, "endsAt", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Lowered only, by endNoLaterThan, when the bucket's window was shortened; else as the window opened.
    volatile long endsAt;

    FixedWindow(long endsAt, long count) {
        super(count);
        this.endsAt = endsAt;
    }

    /**
     * Time until this window ends at {@code now}, at most {@code windowMillis} (a window counted under a longer
     * window of the same bucket name); the same instance for every call of one millisecond.
     */
    Duration resetAfter(long now, long windowMillis) {
        return apply(Math.max(0, Math.min(endsAt - now, windowMillis)));
    }

    /**
     * Moves the end earlier to {@code latest} if it is later, never later: a window opened under a longer length of
     * its bucket ends within the current length, with its count (by compare-and-set, so no count is lost). A call
     * whose clock read came a few milliseconds before another's opened the window may move its end those
     * milliseconds earlier: the window then ends sooner than said, never later.
     */
    void endNoLaterThan(long latest) {
        while (true) {
            long end = endsAt;
            if (end <= latest || ENDS_AT.compareAndSet(this, end, latest)) {
                return;
            }
        }
    }
}
