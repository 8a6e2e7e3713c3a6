package dev.ratelimiter.internal.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The sweep of one counter table (docs/stores.md#the-sweep): deletes the rows whose window has ended (a concurrency
 * bucket's permits row once every lease has ended, its {@code ends_at} the latest deadline), in batches
 * of 10 000, each its own short transaction holding a transaction-scoped advisory lock that only sweeps of this
 * table take: when another replica is sweeping, returns what it deleted so far (0 at once when it was first). The
 * lock ends with its transaction, so it neither leaks nor needs the same server session for taking and releasing,
 * as behind a transaction pooler. Rows a decision holds locked are skipped, not waited for: a call of several
 * buckets keeps all its rows locked until it ends, some of them ended, and a sweep that waited for one while
 * holding others could deadlock with it. A skipped row goes at the next sweep.
 *
 * <p>Each batch runs under a statement timeout and a network timeout of 30 s, its own, not a decision's. Nothing
 * is thrown: a failure is logged as a warning with the rows deleted until then, and the next sweep runs on
 * schedule. The sweep takes no place in the decisions' bulkhead.
 */
final class CounterSweep {

    // The store's logger, as before its parts were split out of it: logging configurations name it.
    private static final System.Logger LOG = System.getLogger(PostgresStore.class.getName());
    private static final int TIMEOUT_MILLIS = 30_000;

    private final String table;
    private final CounterStatements statements;
    private final CounterParameters parameters;
    private final ConnectionRunner connections;

    /**
     * @param table       the counter table, already validated as an identifier
     * @param statements  the table's statements: the batch's delete ({@link CounterStatements#sweep()})
     * @param parameters  what binds its instant ({@link CounterParameters#bindSweep})
     * @param connections the store's connections
     */
    CounterSweep(String table, CounterStatements statements, CounterParameters parameters,
                 ConnectionRunner connections) {
        this.table = table;
        this.statements = statements;
        this.parameters = parameters;
        this.connections = connections;
    }

    /** @return the rows deleted, also when it stopped early */
    long sweep() {
        long[] deleted = {0};
        try {
            connections.onConnection(TIMEOUT_MILLIS, connection -> deleteEnded(connection, deleted));
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
                "SET LOCAL statement_timeout = " + TIMEOUT_MILLIS);
             PreparedStatement lock = connection.prepareStatement(
                     // Keyed by the table's own identity (its OID), so tables of the same name in other schemas of
                     // one database keep sweeps of their own; 0x524C ("RL") is the library's lock space.
                     "SELECT pg_try_advisory_xact_lock(?, hashtext(?::regclass::oid::text))");
             PreparedStatement statement = connection.prepareStatement(statements.sweep().sql())) {
            lock.setInt(1, 0x524C);
            lock.setString(2, table);
            parameters.bindSweep(statement, statements.sweep());
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
            } while (batch == CounterStatements.SWEEP_BATCH);
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
}
