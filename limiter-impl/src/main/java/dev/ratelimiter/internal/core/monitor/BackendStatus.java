package dev.ratelimiter.internal.core.monitor;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the readiness check reports about the backend.
 *
 * @param backend      the configured store's name ({@code ratelimiter.backend}): {@code memory} or a provider's
 * @param state        ok or degraded
 * @param since        when the backend entered that state (startup for a backend that never changed)
 * @param lastError    the last failure's exception type and a message with no host, user or password; empty when
 *                     none happened
 * @param failingParts for a store whose parts fail on their own (the masters of a Valkey cluster): the parts whose
 *                     breaker is open, by name ({@code host:port}), sorted; the state is degraded while any is.
 *                     Empty for a store that fails as a whole.
 */
public record BackendStatus(String backend, BackendState state, Instant since, Optional<String> lastError,
                            List<String> failingParts) {

    public BackendStatus {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(lastError, "lastError");
        failingParts = List.copyOf(failingParts);
    }

    /** The status of a store that fails as a whole. */
    public BackendStatus(String backend, BackendState state, Instant since, Optional<String> lastError) {
        this(backend, state, since, lastError, List.of());
    }
}
