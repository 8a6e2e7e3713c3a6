package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.ErrorDescriptions;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.StoreException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How the store's calls get and use a connection within the deadline (docs/stores.md#deadlines-and-outages): a
 * bulkhead ({@link Semaphore#tryAcquire(long, TimeUnit)}) admits at most {@code permits} decisions at once and
 * waits at most {@code timeout} for a place, since pools cannot all wait less than 250 ms; each call runs with the
 * connection's network timeout at 1.5 x {@code timeout} (set once per connection of the library's own pool, set
 * and put back on a server's pool), which bounds it whatever the server does (the statement timeout, which lets
 * the server end a slow statement and keep the connection, is the pool's: the library's own pool sets it unless
 * behind PgBouncer, see docs/stores.md#pgbouncer). No client-side cancel: pgjdbc makes a timed-out call wait for
 * its cancel request to finish, which against a paused server takes the driver's cancelSignalTimeout (10 s). The
 * wait for a free connection of a server's pool is bounded by the {@link BoundedWaitDataSource} it is given.
 *
 * <p>Errors: a full bulkhead, or an interrupt while waiting for it, is a {@link StoreException} of
 * {@link FailureKind#TRANSIENT}; everything else is the driver's {@link SQLException} (or a
 * {@link RuntimeException}), thrown as it came for the store to classify ({@link PostgresFailures}). Before it is
 * thrown, a connection that failed in a way no later call could use ({@link FailureKind#RECONNECT}) leaves its pool
 * ({@link ConnectionEviction}), and a failure only a person can fix ({@link FailureKind#CONFIGURATION}) is logged
 * once per SQLSTATE.
 */
final class ConnectionRunner {

    // The store's logger, as before its parts were split out of it: logging configurations name it.
    private static final System.Logger LOG = System.getLogger(PostgresStore.class.getName());
    private static final Executor DIRECT = Runnable::run;

    private final DataSource dataSource;
    private final ConnectionEviction eviction;
    private final boolean ownPool;
    private final int timeoutMillis;
    private final int networkTimeoutMillis;
    private final Semaphore bulkhead;
    private final Set<String> configurationStatesLogged = ConcurrentHashMap.newKeySet();

    /**
     * @param dataSource a non-transactional pool (autocommit, READ COMMITTED)
     * @param eviction   how a connection that must not be used again leaves the pool
     * @param ownPool    whether {@code dataSource} is the library's own pool (see
     *                   {@link PostgresStore#PostgresStore(DataSource, String, Duration, int, java.util.Optional,
     *                   ConnectionEviction, boolean)})
     * @param timeout    the deadline of each call, used in whole milliseconds from 1 to {@link Integer#MAX_VALUE}
     * @param permits    decisions in flight at once (the bulkhead)
     */
    ConnectionRunner(DataSource dataSource, ConnectionEviction eviction, boolean ownPool, Duration timeout,
                     int permits) {
        this.dataSource = dataSource;
        this.eviction = eviction;
        this.ownPool = ownPool;
        this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        // A margin over the statement timeout, so a slow statement is cancelled by the server (the connection
        // stays usable) before the socket gives up (the driver then closes the connection).
        this.networkTimeoutMillis = timeoutMillis + Math.max(50, timeoutMillis / 2);
        this.bulkhead = new Semaphore(permits);
    }

    /**
     * The longest a call can take: a bulkhead wait of the timeout, then a network timeout of 1.5 times it (plus a
     * margin), so that whoever waits for a call from another thread waits a little longer than the call can.
     */
    Duration deadline() {
        return Duration.ofMillis(timeoutMillis).multipliedBy(3).plusMillis(100);
    }

    /**
     * Waits at most the timeout for a place in the bulkhead, since pools cannot all wait less than 250 ms; a
     * place taken is given back by {@link #release()}.
     *
     * @throws StoreException of {@link FailureKind#TRANSIENT} when no place came within the timeout, or the
     *                        thread was interrupted (its interrupt flag is set again)
     */
    void acquire() throws StoreException {
        try {
            if (!bulkhead.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS)) {
                throw new StoreException(FailureKind.TRANSIENT,
                        new SQLTimeoutException("no connection within the deadline (bulkhead full)"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(FailureKind.TRANSIENT,
                    new SQLTimeoutException("interrupted while waiting for a connection"));
        }
    }

    /** Gives back the place {@link #acquire()} took. */
    void release() {
        bulkhead.release();
    }

    /** Runs {@code work} with a decision's network timeout, 1.5 x the timeout (see the method below). */
    <T> T onConnection(ConnectionWork<T> work) throws SQLException {
        return onConnection(networkTimeoutMillis, work);
    }

    /** Work on a borrowed connection. */
    @FunctionalInterface
    interface ConnectionWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on a connection of the pool with the given network timeout (milliseconds), refusing one
     * that joined the caller's transaction; a connection that failed in a way no later call could use
     * ({@link FailureKind#RECONNECT} ({@link PostgresFailures})) leaves its pool, and a failure only a person can
     * fix is logged once.
     */
    <T> T onConnection(int networkTimeout, ConnectionWork<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            try {
                refuseJoinedTransaction(connection);
                if (ownPool) {
                    setNetworkTimeout(connection.unwrap(Connection.class), networkTimeout);
                    return work.run(connection);
                }
                int previous = connection.getNetworkTimeout();
                connection.setNetworkTimeout(DIRECT, networkTimeout);
                try {
                    return work.run(connection);
                } finally {
                    restore(connection, previous);
                }
            } catch (SQLException | RuntimeException e) {
                if (PostgresFailures.classify(e) == FailureKind.RECONNECT) {
                    evict(connection, e);
                }
                throw e;
            }
        } catch (SQLException e) {
            SQLException failure = PostgresFailures.explained(e);
            if (PostgresFailures.classify(failure) == FailureKind.CONFIGURATION) {
                logConfigurationFailure(failure);
            }
            throw failure;
        }
    }

    private void evict(Connection connection, Exception cause) {
        try {
            eviction.evict(connection);
        } catch (SQLException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /** Once per SQLSTATE: the failure repeats on every call until someone changes the setup. */
    private void logConfigurationFailure(SQLException failure) {
        if (configurationStatesLogged.add(String.valueOf(failure.getSQLState()))) {
            LOG.log(System.Logger.Level.ERROR, "Rate limiter: a PostgreSQL call failed in a way only a change of "
                    + "setup fixes (" + ErrorDescriptions.describe(failure) + "); decisions fall to the buckets' "
                    + "outage policies until it is fixed (behind PgBouncer: see docs/stores.md#pgbouncer)");
        }
    }

    /**
     * A transactional server pool passes the startup check (its connections are in autocommit outside a
     * transaction) and then hands out, inside the caller's transaction, a connection enlisted in it: the counter
     * would roll back with the caller's work and hold its row lock until then. Such a connection is not in
     * autocommit; it is not used, and the failure (the outage policy decides, readiness names it) says what to fix.
     */
    private void refuseJoinedTransaction(Connection connection) throws SQLException {
        if (!connection.getAutoCommit()) {
            SQLNonTransientException refusal = new SQLNonTransientException("ratelimiter.postgres: the DataSource "
                    + "gave a connection in the caller's transaction (not in autocommit), so the counter would roll "
                    + "back with it; use a non-transactional pool", "25000");
            // A configuration mistake, not an outage: calls outside transactions succeed in between, so the
            // breaker may never open and readiness may stay ok. Logged once, loudly (FailureKind.CONFIGURATION).
            throw refusal;
        }
    }

    /** Sets the network timeout only when it differs: a connection of the library's own pool keeps it. */
    private static void setNetworkTimeout(Connection driverConnection, int networkTimeout) throws SQLException {
        if (driverConnection.getNetworkTimeout() != networkTimeout) {
            driverConnection.setNetworkTimeout(DIRECT, networkTimeout);
        }
    }

    /**
     * Puts the pool's network timeout back. Not on a connection the driver closed after a timeout: that would throw
     * and hide the failure that matters.
     */
    private static void restore(Connection connection, int networkTimeout) throws SQLException {
        if (!connection.isClosed()) {
            connection.setNetworkTimeout(DIRECT, networkTimeout);
        }
    }
}
