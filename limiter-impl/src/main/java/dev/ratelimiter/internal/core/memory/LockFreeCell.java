package dev.ratelimiter.internal.core.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A key's state of one window without a lock: the window it has open, replaced by compare-and-set when a window
 * opens (the only allocation) and by the cell's retired sentinel, for good, when it is swept or reset. The window's
 * count grows in place ({@link OpenWindow}), so an existing key's call allocates nothing here. Written once for the
 * fixed window ({@link FixedWindowCell}) and the sliding window ({@link SlidingWindowCell}); a token bucket's cell
 * holds a number, not a window, and keeps its own compare-and-set ({@link TokenBucketCell} says why).
 *
 * <p>The sentinel is each subclass's constant, given by {@link #retired()}, not a field: a field would add four
 * bytes to every key's cell. The subclasses' decisions compare with their constant directly; only the sweep and a
 * reset, off the hot path, ask this class's two methods.
 *
 * @param <W> the window the cell holds
 */
abstract class LockFreeCell<W extends OpenWindow> extends KeyState {
    private static final VarHandle HELD;

    static {
        try {
            HELD = MethodHandles.lookup().findVarHandle(LockFreeCell.class, "held", OpenWindow.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile W held;

    LockFreeCell(W held) {
        this.held = held;
    }

    /** The window this cell holds now, or its retired sentinel. */
    final W held() {
        return held;
    }

    /** Replaces {@code expected} with {@code next}; false if another thread replaced it first. */
    final boolean replace(W expected, W next) {
        return HELD.compareAndSet(this, expected, next);
    }

    /** The window this cell holds once retired: never counted in, never replaced. */
    abstract W retired();

    /** Whether {@code window}, held by this cell, has ended at {@code now}, so the sweep may retire the cell. */
    abstract boolean ended(W window, long now);

    @Override
    final boolean retire() {
        W retired = retired();
        while (true) {
            W current = held;
            if (current == retired) {
                return false;
            }
            if (replace(current, retired)) {
                return true;
            }
        }
    }

    @Override
    final boolean retireIfEnded(long now) {
        W retired = retired();
        W current = held;
        return current != retired && ended(current, now) && replace(current, retired);
    }
}
