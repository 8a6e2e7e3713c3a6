package dev.ratelimiter.spi;

/**
 * What a failed store call asks of the store's client, so that each store classifies its own errors once and
 * the reaction is the same for all of them (docs/writing-a-store.md).
 */
public enum FailureKind {
    /**
     * May pass by itself: a timeout, a refused or reset connection, a server loading its data. The client's pool
     * already discards a broken connection; nothing else to do.
     */
    TRANSIENT,
    /**
     * The connection works but leads to the wrong server or is left in a state no later call can use, such as a
     * primary demoted to a replica (Valkey {@code READONLY}, PostgreSQL SQLSTATE 25006) or a session stuck in a
     * failed transaction (PostgreSQL 25P02): the connections are dropped from their pool so that new ones find the
     * current primary behind the same DNS name or proxy.
     */
    RECONNECT,
    /**
     * Persists until an operator changes the server or the credentials: rotated or wrong credentials
     * ({@code NOAUTH}, {@code WRONGPASS}), missing permissions ({@code NOPERM}), a full server that may not evict
     * ({@code OOM}), a server refusing writes after failed snapshots ({@code MISCONF}). Reconnecting does not help:
     * the breaker opens and its probe, which fails the same way, keeps it open until the operator's fix.
     */
    CONFIGURATION
}
