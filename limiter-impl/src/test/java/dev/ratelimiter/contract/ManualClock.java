package dev.ratelimiter.contract;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A time source that moves only when a test moves it. Thread-safe. */
public final class ManualClock implements InstantSource {

    private final AtomicReference<Instant> now;

    public ManualClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    /** Moves time forward (or back, for a negative amount). */
    public void advance(Duration amount) {
        now.updateAndGet(instant -> instant.plus(amount));
    }

    /** Sets the time. */
    public void set(Instant instant) {
        now.set(instant);
    }
}
