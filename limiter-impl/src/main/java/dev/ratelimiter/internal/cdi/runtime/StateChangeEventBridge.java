package dev.ratelimiter.internal.cdi.runtime;

import dev.ratelimiter.RateLimiterStateChanged;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.monitor.BackendStatus;
import jakarta.enterprise.event.Event;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Bridges the store's state changes ({@link dev.ratelimiter.internal.core.monitor.BackendMonitor}) to the CDI event
 * {@link RateLimiterStateChanged}, fired on the thread that caused the change (docs/operations.md#readiness).
 */
final class StateChangeEventBridge implements Consumer<BackendStatus> {

    private final Event<RateLimiterStateChanged> events;

    /** @param events where each change is fired */
    StateChangeEventBridge(Event<RateLimiterStateChanged> events) {
        this.events = Objects.requireNonNull(events, "events");
    }

    @Override
    public void accept(BackendStatus status) {
        events.fire(new RateLimiterStateChanged(status.backend(), status.state() == BackendState.DEGRADED,
                status.since(), status.lastError()));
    }
}
