package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitDenied;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Observes denials, as an application's lockout hook would. */
@ApplicationScoped
public class DenialRecorder {

    private final List<RateLimitDenied> denials = new CopyOnWriteArrayList<>();

    /** The denials observed so far. */
    public List<RateLimitDenied> denials() {
        return List.copyOf(denials);
    }

    void onDenied(@Observes RateLimitDenied denied) {
        denials.add(denied);
    }
}
