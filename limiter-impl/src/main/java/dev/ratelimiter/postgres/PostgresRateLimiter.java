package dev.ratelimiter.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Sweepable;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.ErrorDescriptions;
import dev.ratelimiter.core.FailureKind;
import dev.ratelimiter.core.RateLimiterMetrics;

import javax.sql.DataSource;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientException;
import java.sql.SQLTimeoutException;
import java.sql.Types;
import java.time.Duration;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Fixed windows in a PostgreSQL table. Counting, deciding and reopening an ended window are one
 * {@code INSERT ... ON CONFLICT (bucket, key) DO UPDATE ... RETURNING}: no read before the write, no explicit
 * transaction, no advisory lock. PostgreSQL's row lock serialises concurrent attempts on a key from any number of
 * processes, so each sees the count the previous one left, and two first attempts never fail with a unique
 * violation.
 *
 * <p>The window's time is the database's, one instant per statement ({@code statement_timestamp()}, unlike
 * {@code clock_timestamp()}, does not move between the statement's expressions); tests bind an instant instead.
 *
 * <p>Deadlines: a bulkhead ({@link Semaphore#tryAcquire(long, TimeUnit)}) admits at most {@code permits} calls
 * at once and waits at most {@code timeout} for a place, since pools cannot all wait less than 250 ms; each call
 * runs with the connection's network timeout at 1.5 x {@code timeout} (set once per connection of the library's
 * own pool, set and put back on a server's pool), which bounds it whatever the server does (the
 * statement timeout, which lets the server end a slow statement and keep the connection, is the pool's: the
 * library's own pool sets it unless behind PgBouncer). No client-side cancel: pgjdbc makes a timed-out call wait
 * for its cancel request to finish, which against a paused server takes the driver's cancelSignalTimeout (10 s).
 * Any failure is reported to the {@link BackendMonitor} and answered {@link Verdict.Outcome#UNAVAILABLE}; nothing
 * is thrown out of {@link #consume}, {@link #reset} or {@link #sweep}. A failed connection leaves its pool when no
 * later call could use it ({@link PostgresFailures}).
 */
public final class PostgresRateLimiter implements RateLimiter, Sweepable {

    private static final System.Logger LOG = System.getLogger(PostgresRateLimiter.class.getName());
    private static final Executor DIRECT = Runnable::run;
    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.BIG_ENDIAN);
    private static final int SWEEP_BATCH = 10_000;
    private static final int SWEEP_TIMEOUT_MILLIS = 30_000;

    private final DataSource dataSource;
    private final String table;
    private final int timeoutMillis;
    private final int networkTimeoutMillis;
    private final Semaphore bulkhead;
    private final Optional<InstantSource> boundClock;
    private final BackendMonitor monitor;
    private final RateLimiterMetrics metrics;
    private final String consumeSql;
    private final String resetSql;
    private final String sweepSql;
    private final String probeSql;
    private final ConnectionEviction eviction;
    private final boolean ownPool;
    private final Set<String> configurationStatesLogged = ConcurrentHashMap.newKeySet();

    /**
     * @param dataSource a non-transactional pool (autocommit, READ COMMITTED)
     * @param table      the counter table, already validated as an identifier
     * @param timeout    the deadline of each call
     * @param permits    calls in flight at once (the bulkhead)
     * @param boundClock empty in production (the database's {@code statement_timestamp()}); tests bind instants
     * @param eviction   how a connection that must not be used again leaves the pool
     * @param monitor    told of every failure
     * @param metrics    told how long each call took
     */
    public PostgresRateLimiter(DataSource dataSource, String table, Duration timeout, int permits,
                               Optional<InstantSource> boundClock, ConnectionEviction eviction,
                               BackendMonitor monitor, RateLimiterMetrics metrics) {
        this(dataSource, table, timeout, permits, boundClock, eviction, false, monitor, metrics);
    }

    /**
     * @param ownPool {@code true} when {@code dataSource} is the library's own pool ({@link HikariPools#create}),
     *                used by nothing else: a connection then keeps the network timeout a call set on it, set on the
     *                driver's connection, so the pool does not put it back on every return and the next call on it
     *                finds it set. {@code false} for a server's pool shared with the application: each call puts
     *                the connection's previous network timeout back. The other parameters are those above.
     */
    public PostgresRateLimiter(DataSource dataSource, String table, Duration timeout, int permits,
                               Optional<InstantSource> boundClock, ConnectionEviction eviction, boolean ownPool,
                               BackendMonitor monitor, RateLimiterMetrics metrics) {
        this.ownPool = ownPool;
        this.eviction = Objects.requireNonNull(eviction, "eviction");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.table = Objects.requireNonNull(table, "table");
        this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        // A margin over the statement timeout, so a slow statement is cancelled by the server (the connection
        // stays usable) before the socket gives up (the driver then closes the connection).
        this.networkTimeoutMillis = timeoutMillis + Math.max(50, timeoutMillis / 2);
        this.bulkhead = new Semaphore(permits);
        this.boundClock = Objects.requireNonNull(boundClock, "boundClock");
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.consumeSql = "INSERT INTO " + table + " AS c (bucket, key, ends_at, count) "
                + "VALUES (?, ?, COALESCE(?::timestamptz, statement_timestamp()) + ? * interval '1 second', 1) "
                + "ON CONFLICT (bucket, key) DO UPDATE SET "
                // EXCLUDED.ends_at - window is this statement's instant; the old row's ends_at decides.
                + "count = CASE WHEN c.ends_at <= EXCLUDED.ends_at - ? * interval '1 second' "
                + "THEN 1 ELSE c.count + 1 END, "
                + "ends_at = CASE WHEN c.ends_at <= EXCLUDED.ends_at - ? * interval '1 second' "
                + "THEN EXCLUDED.ends_at ELSE c.ends_at END "
                + "RETURNING count, ends_at, COALESCE(?::timestamptz, statement_timestamp())";
        this.resetSql = "DELETE FROM " + table + " WHERE bucket = ? AND key = ?";
        this.probeSql = "UPDATE " + table + " SET count = count WHERE false";
        this.sweepSql = "DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table
                + " WHERE ends_at <= COALESCE(?::timestamptz, statement_timestamp()) LIMIT " + SWEEP_BATCH + "))";
    }

    @Override
    public Verdict consume(Bucket bucket, String key) {
        long start = System.nanoTime();
        try {
            if (!bulkhead.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS)) {
                monitor.failure(new SQLTimeoutException("no connection within the deadline (bulkhead full)"));
                return Verdict.unavailable(bucket.limit(), Duration.ZERO);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        }
        try {
            return onConnection(networkTimeoutMillis, connection -> {
                try (PreparedStatement statement = connection.prepareStatement(consumeSql)) {
                    Optional<OffsetDateTime> now = boundNow();
                    long window = bucket.windowSeconds();
                    statement.setString(1, bucket.name());
                    statement.setString(2, key);
                    setInstant(statement, 3, now);
                    statement.setLong(4, window);
                    statement.setLong(5, window);
                    statement.setLong(6, window);
                    setInstant(statement, 7, now);
                    try (ResultSet row = statement.executeQuery()) {
                        row.next();
                        return verdict(bucket, row.getLong(1), timeLeft(row));
                    }
                }
            });
        } catch (SQLException | RuntimeException e) {
            monitor.failure(e);
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        } finally {
            bulkhead.release();
            metrics.backendCall(Backend.POSTGRES, System.nanoTime() - start);
        }
    }

    @Override
    public void reset(Bucket bucket, String key) {
        try {
            onConnection(networkTimeoutMillis, connection -> {
                try (PreparedStatement statement = connection.prepareStatement(resetSql)) {
                    statement.setString(1, bucket.name());
                    statement.setString(2, key);
                    return statement.executeUpdate();
                }
            });
        } catch (SQLException | RuntimeException e) {
            monitor.failure(e); // the window simply runs out
        }
    }

    /**
     * Deletes the rows whose window has ended, in batches of 10 000, each its own short transaction holding a
     * transaction-scoped advisory lock that only sweeps of this table take: when another replica is sweeping,
     * returns what it deleted so far (0 at once when it was first). The lock ends with its transaction, so it
     * neither leaks nor needs the same server session for taking and releasing, as behind a transaction pooler.
     */
    @Override
    public long sweep() {
        long[] deleted = {0};
        try {
            onConnection(SWEEP_TIMEOUT_MILLIS, connection -> deleteEnded(connection, deleted));
        } catch (SQLException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "sweep of " + table + " stopped after " + deleted[0] + " rows; the "
                    + "next one runs on schedule", e);
        }
        return deleted[0];
    }

    /**
     * Each batch is its own short transaction with a statement timeout of its own: a pool's timeout (100 ms) fits
     * a decision, not a delete of 10 000 rows. {@code SET LOCAL} ends with the transaction, so it never reaches
     * another client of a transaction pooler.
     */
    private long deleteEnded(Connection connection, long[] deleted) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (PreparedStatement timeout = connection.prepareStatement(
                "SET LOCAL statement_timeout = " + SWEEP_TIMEOUT_MILLIS);
             PreparedStatement lock = connection.prepareStatement(
                     // Keyed by the table's own identity (its OID), so tables of the same name in other schemas of
                     // one database keep sweeps of their own; 0x524C ("RL") is the library's lock space.
                     "SELECT pg_try_advisory_xact_lock(?, hashtext(?::regclass::oid::text))");
             PreparedStatement statement = connection.prepareStatement(sweepSql)) {
            lock.setInt(1, 0x524C);
            lock.setString(2, table);
            setInstant(statement, 1, boundNow());
            int batch;
            do {
                timeout.execute();
                if (!locked(lock)) {
                    connection.rollback();
                    break; // another replica sweeps
                }
                batch = statement.executeUpdate();
                connection.commit();
                deleted[0] += batch;
            } while (batch == SWEEP_BATCH);
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
        return deleted[0];
    }

    private static boolean locked(PreparedStatement lock) throws SQLException {
        try (ResultSet row = lock.executeQuery()) {
            return row.next() && row.getBoolean(1);
        }
    }

    /**
     * One cheap round trip for the circuit breaker's probe, on the write path: an {@code UPDATE} of the counter
     * table that matches no row still needs a writable session and the table's privileges, so a read-only session
     * (a demoted writer, a standby behind the same address) fails it with SQLSTATE 25006 where {@code SELECT 1}
     * would succeed and close the breaker on a store that refuses every decision.
     *
     * @throws SQLException if the database does not take a write within the deadline
     */
    public void probe() throws SQLException {
        onConnection(networkTimeoutMillis, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(probeSql)) {
                return statement.executeUpdate();
            }
        });
    }

    /** Work on a borrowed connection. */
    @FunctionalInterface
    private interface ConnectionWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on a connection of the pool with the given network timeout, refusing one that joined the
     * caller's transaction; a connection that failed in a way no later call could use ({@link FailureKind#RECONNECT} ({@link PostgresFailures}))
     * leaves its pool, and a failure only a person can fix is logged once.
     */
    private <T> T onConnection(int networkTimeout, ConnectionWork<T> work) throws SQLException {
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
            if (PostgresFailures.classify(e) == FailureKind.CONFIGURATION) {
                logConfigurationFailure(e);
            }
            throw e;
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
                    + "outage policies until it is fixed (behind PgBouncer: see the README's \"PgBouncer\")");
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

    private Optional<OffsetDateTime> boundNow() {
        return boundClock.map(clock -> OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC));
    }

    private static void setInstant(PreparedStatement statement, int index, Optional<OffsetDateTime> instant)
            throws SQLException {
        if (instant.isPresent()) {
            statement.setObject(index, instant.get());
        } else {
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        }
    }

    /**
     * The returned {@code ends_at} (column 2) minus the statement's instant (column 3). PostgreSQL sends a
     * {@code timestamptz} in binary as 8 bytes, big-endian microseconds since 2000-01-01 (integer datetimes, the
     * only build since PostgreSQL 10), and pgjdbc hands a binary column's bytes out as they came once it has
     * prepared the statement on the server (from the statement's fifth use on a connection): their difference
     * needs no calendar, where {@code getObject(OffsetDateTime)} builds a {@code GregorianCalendar} per result.
     * In text (the first uses, or {@code prepareThreshold=0} behind PgBouncer) a value is never 8 bytes long, and
     * both instants are parsed.
     */
    private static Duration timeLeft(ResultSet row) throws SQLException {
        byte[] endsAt = row.getBytes(2);
        byte[] statementTime = row.getBytes(3);
        if (endsAt != null && statementTime != null && endsAt.length == Long.BYTES
                && statementTime.length == Long.BYTES) {
            long micros = (long) BIG_ENDIAN_LONG.get(endsAt, 0) - (long) BIG_ENDIAN_LONG.get(statementTime, 0);
            return Duration.ofNanos(micros * 1_000);
        }
        return Duration.between(row.getObject(3, OffsetDateTime.class).toInstant(),
                row.getObject(2, OffsetDateTime.class).toInstant());
    }

    private static Verdict verdict(Bucket bucket, long count, Duration left) {
        // A statement that waited for the row lock behind the one that opened the window has an earlier instant:
        // its time left can exceed the window by microseconds.
        Duration resetAfter = left.isNegative() ? Duration.ZERO : left.compareTo(bucket.window()) > 0
                ? bucket.window() : left;
        return count <= bucket.limit()
                ? Verdict.allowed(bucket.limit(), bucket.limit() - count, resetAfter)
                : Verdict.denied(bucket.limit(), resetAfter);
    }
}
