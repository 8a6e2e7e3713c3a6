package dev.ratelimiter.internal.core.time;

import java.time.Instant;
import java.time.InstantSource;

/**
 * The limiter's default time source: the wall-clock instant at startup plus the nanoseconds elapsed since
 * ({@link System#nanoTime()}), so it never steps back or forward when the machine's clock is set, and a window
 * lasts its length of real elapsed time (docs/guide.md#time). It drifts from the wall clock by whatever the
 * wall clock is stepped after startup; only the in-process store reads it, so nothing outside compares it.
 * Thread-safe and allocation-free for {@link #millis()}.
 */
public final class ElapsedTimeClock implements InstantSource {

    private final long startEpochMillis;
    private final long startNanos;

    private ElapsedTimeClock(long startEpochMillis, long startNanos) {
        this.startEpochMillis = startEpochMillis;
        this.startNanos = startNanos;
    }

    /** A clock that starts at the wall clock's present instant. */
    public static ElapsedTimeClock startingNow() {
        return new ElapsedTimeClock(System.currentTimeMillis(), System.nanoTime());
    }

    /** Epoch milliseconds: the start plus the whole milliseconds elapsed since. */
    @Override
    public long millis() {
        return startEpochMillis + (System.nanoTime() - startNanos) / 1_000_000;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(startEpochMillis).plusNanos(System.nanoTime() - startNanos);
    }
}
