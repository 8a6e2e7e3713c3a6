package dev.ratelimiter.spi;

import java.util.Objects;

/**
 * A store call failed. The store classifies its own failure once ({@link #kind()}); the library then reacts the
 * same way for every store: it answers the call {@code UNAVAILABLE} (the bucket's outage policy decides), reports
 * the failure to readiness and metrics, and counts it towards the circuit breaker (docs/writing-a-store.md). A store
 * drops or evicts its own connections for {@link FailureKind#RECONNECT} before it throws.
 */
public class StoreException extends Exception {

    private static final long serialVersionUID = 1L;

    /** The failure's class, never {@code null}. */
    private final FailureKind kind;

    /**
     * @param kind  what the failure asks of the store's client
     * @param cause the client's own exception, whose description (sanitized: no host, user or password) becomes
     *              readiness's {@code lastError}
     */
    public StoreException(FailureKind kind, Throwable cause) {
        super(Objects.requireNonNull(cause, "cause").getMessage(), cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** What the failure asks of the store's client. */
    public FailureKind kind() {
        return kind;
    }
}
