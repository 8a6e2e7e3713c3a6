package dev.ratelimiter.internal.core.time;

import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A time source that never goes back: it follows another {@link InstantSource} (an application's own, which may
 * be the wall clock) while that one moves forward, and when it steps back, counts the time elapsed since the
 * previous reading ({@link System#nanoTime()}) instead, then follows the source again from its new reading. So a
 * window timed by it ends no later than its length of elapsed time after it opened, whatever is done to the
 * source (docs/guide.md#time); a step forward ends windows early, which shortens a window but never shuts a client
 * out longer than promised.
 *
 * <p>Lock-free: the latest reading is swapped by compare-and-set when the source's millisecond changes (one
 * allocation per millisecond at most, not per call). The previous reading is loaded before the source is read,
 * so a thread that was paused between the two cannot mistake its old reading for a step back.
 */
public final class ForwardOnlyClock implements InstantSource {

    private final InstantSource source;
    private final AtomicReference<Reading> latest;

    private ForwardOnlyClock(InstantSource source) {
        this.source = source;
        long now = source.millis();
        this.latest = new AtomicReference<>(new Reading(now, now, System.nanoTime()));
    }

    /**
     * {@code source} made forward-only; {@code source} itself when it cannot go back ({@link ElapsedTimeClock},
     * or a clock already made forward-only).
     */
    public static InstantSource of(InstantSource source) {
        Objects.requireNonNull(source, "source");
        return source instanceof ElapsedTimeClock || source instanceof ForwardOnlyClock
                ? source : new ForwardOnlyClock(source);
    }

    /** Epoch milliseconds as far as elapsed time goes: the source's, less every step back it took. */
    @Override
    public long millis() {
        while (true) {
            Reading previous = latest.get();
            long raw = source.millis();
            if (raw == previous.raw) {
                return previous.steady;
            }
            long nanos = System.nanoTime();
            long advance = raw > previous.raw ? raw - previous.raw
                    : Math.max(0, (nanos - previous.nanos) / 1_000_000); // stepped back: elapsed time instead
            long steady = previous.steady + advance;
            if (latest.compareAndSet(previous, new Reading(raw, steady, nanos))) {
                return steady;
            }
        }
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    /** The source's reading, the time this clock gave for it, and when ({@link System#nanoTime()}). */
    private record Reading(long raw, long steady, long nanos) {
    }
}
