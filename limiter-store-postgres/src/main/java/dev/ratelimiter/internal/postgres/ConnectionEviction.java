package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.FailureKind;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * How a connection that failed with {@link FailureKind#RECONNECT} ({@link PostgresFailures}) leaves its pool, so
 * that no later call gets it again: the library's own pool evicts it (and retires the others, see
 * {@link HikariPools#eviction}); a server's pool is told through JDBC's {@link Connection#abort}, which closes it,
 * and drops it when it next validates it.
 */
@FunctionalInterface
public interface ConnectionEviction {

    /** A server's pool: {@link Connection#abort} (the driver closes the socket at once). */
    ConnectionEviction ABORT = connection -> connection.abort(Runnable::run);

    /**
     * Takes the connection, still open and not yet closed by the caller, out of use.
     *
     * @param connection the connection as the pool handed it out
     * @throws SQLException when the pool or driver refuses; the call has failed anyway
     */
    void evict(Connection connection) throws SQLException;
}
