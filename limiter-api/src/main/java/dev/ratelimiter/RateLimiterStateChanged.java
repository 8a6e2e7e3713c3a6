package dev.ratelimiter;

import java.time.Instant;
import java.util.Optional;

/**
 * CDI event fired when the shared backend changes state: {@code ok} to {@code degraded} when the circuit breaker
 * opens, and back when the background probe has seen enough successes in a row. Fired once per change, never per
 * request: {@code void onChange(@Observes RateLimiterStateChanged change)}.
 *
 * @param backend   the store's name, {@code ratelimiter.backend}: {@code valkey}, {@code postgres} or another
 *                  store provider's
 * @param degraded  {@code true} when the outage policies now decide, {@code false} when the backend is back
 * @param since     when the change happened
 * @param lastError the failure's exception type and message, with no host, user or password; empty on recovery
 */
public record RateLimiterStateChanged(String backend, boolean degraded, Instant since, Optional<String> lastError) {
}
