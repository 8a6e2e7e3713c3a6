package dev.ratelimiter.internal.core.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.function.LongFunction;

/**
 * The window a {@link LockFreeCell} holds open: its count, which grows in place by compare-and-set only when a call
 * fits, so a refused call leaves it as it was, and the last {@code resetAfter} it handed out.
 *
 * <p>The verdict's {@code resetAfter} is a {@link Duration} the window keeps for the millisecond it was made in,
 * since every call of that millisecond reports the same one. The window's reference to it fills the object's
 * alignment gap (a fixed window stays 32 bytes with compressed references); the kept {@code Duration} (24 bytes)
 * lives as long as the window, for keys called more than once in it: 24 bytes of heap per busy key instead of 24
 * bytes of garbage per call.
 */
abstract class OpenWindow implements LongFunction<Duration> {
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(OpenWindow.class, "count", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // read and updated through COUNT
    private volatile long count;
    // The last resetAfter handed out. Plain, not volatile: Duration is immutable (final fields), so a racing reader
    // sees a whole one, and apply checks it is the right one before reusing it.
    private Duration resetAfter;

    OpenWindow(long count) {
        this.count = count;
    }

    final long count() {
        return (long) COUNT.getVolatile(this);
    }

    /** Adds {@code cost} if the count is still {@code expected}; false if another attempt came first. */
    final boolean add(long expected, long cost) {
        return COUNT.compareAndSet(this, expected, expected + cost);
    }

    /** Sets the count to {@code next} if it is still {@code expected}; false if another attempt came first. */
    final boolean replaceCount(long expected, long next) {
        return COUNT.compareAndSet(this, expected, next);
    }

    /** Sets the count, whatever it was (a shared store's, {@link MemoryRateLimiter#carry}). */
    final void set(long carried) {
        COUNT.setVolatile(this, carried);
    }

    /** An allowed call's resetAfter of {@code millis}: the one handed out last when it is the same. */
    @Override
    public final Duration apply(long millis) {
        Duration cached = resetAfter;
        if (cached == null || cached.toMillis() != millis) {
            cached = Duration.ofMillis(millis);
            resetAfter = cached;
        }
        return cached;
    }
}
