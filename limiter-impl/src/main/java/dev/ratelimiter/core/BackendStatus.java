package dev.ratelimiter.core;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the readiness check reports about the backend.
 *
 * @param backend   the configured backend
 * @param state     ok or degraded
 * @param since     when the backend entered that state (startup for a backend that never changed)
 * @param lastError the last failure's exception type and a message with no host, user or password; empty when
 *                  none happened
 */
public record BackendStatus(Backend backend, BackendState state, Instant since, Optional<String> lastError) {

    public BackendStatus {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(lastError, "lastError");
    }
}
