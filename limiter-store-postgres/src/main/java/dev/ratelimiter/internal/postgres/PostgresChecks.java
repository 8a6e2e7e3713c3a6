package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.ErrorDescriptions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the library checks of its DataSource at startup: the counter update must never join the application's
 * transaction (it would roll back with it and hold its row lock for the whole business transaction), so the
 * connections must be in autocommit at READ COMMITTED; and the table must exist with every column the statements use,
 * beside the one decide function the store calls ({@link DecideFunction}), all three made by the migration the
 * function names ({@code V1__rate_limit_counters.sql}).
 */
public final class PostgresChecks {

    private static final System.Logger LOG = System.getLogger(PostgresChecks.class.getName());

    /** Every column the statements and the function read or write, in the migration's order. */
    private static final List<String> COLUMNS = List.of("bucket", "key", "ends_at", "count", "denied",
            "window_seconds", "window_counts", "window_ends", "token_intervals", "token_capacities", "previous",
            "length_seconds", "window_previous");

    private PostgresChecks() {
    }

    /**
     * Checks that the DataSource is non-transactional and READ COMMITTED and that the table and the function this
     * version of the library calls ({@link DecideFunction#CURRENT}) are there.
     *
     * @param dataSource the store's DataSource
     * @param table      the counter table, optionally schema-qualified
     * @return the problems found, each saying what to change; empty when all is well, and also when the database
     *         cannot be reached (the application then starts degraded, and a warning is logged)
     */
    public static List<String> check(DataSource dataSource, String table) {
        return check(dataSource, table, DecideFunction.CURRENT);
    }

    /**
     * The checks of {@link #check(DataSource, String)} for a store that calls {@code function}.
     *
     * @param function the decide function the store calls, and the migration that adds it
     */
    static List<String> check(DataSource dataSource, String table, DecideFunction function) {
        List<String> problems = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            if (!connection.getAutoCommit()) {
                problems.add("ratelimiter.postgres: the DataSource's connections are not in autocommit, so counter "
                        + "updates would join transactions; use a non-transactional pool (Payara: the __nontx JNDI "
                        + "suffix or a pool with transactional=false; Open Liberty: transactional=\"false\" on the "
                        + "dataSource; Quarkus Agroal: quarkus.datasource.<name>.jdbc.transactions=disabled)");
            }
            if (connection.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
                problems.add("ratelimiter.postgres: the DataSource's isolation level is "
                        + connection.getTransactionIsolation() + ", not READ COMMITTED; set the pool's isolation "
                        + "level to read-committed (PostgreSQL's default)");
            }
            String apply = "apply the migration " + function.migration() + " (in limiter-store-postgres's jar at "
                    + "db/ratelimiter/postgres, for Flyway: locations=classpath:db/ratelimiter/postgres with "
                    + "table=flyway_ratelimiter_history; or migrations/postgres by hand)";
            if (!hasTable(connection, table)) {
                problems.add("ratelimiter.postgres.table: table '" + table + "' does not exist; " + apply);
            } else {
                List<String> missing = missingColumns(connection, table);
                if (!missing.isEmpty()) {
                    problems.add("ratelimiter.postgres.table: table '" + table + "' lacks the columns "
                            + String.join(", ", missing) + "; " + apply);
                } else if (!hasFunction(connection, function.signature(table))) {
                    problems.add("ratelimiter.postgres.table: the function " + function.name(table) + " beside table '"
                            + table + "' is missing; " + apply + ", in the table's schema");
                }
            }
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter could not check its PostgreSQL DataSource at startup ("
                    + ErrorDescriptions.describe(PostgresFailures.explained(e))
                    + "); starting, and the breaker decides");
        }
        return problems;
    }

    private static boolean hasTable(Connection connection, String table) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT to_regclass(?)")) {
            statement.setString(1, table);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() && row.getString(1) != null;
            }
        }
    }

    /** Whether a function of that signature ({@code name(type, ...)}) is found as the store's calls find it. */
    private static boolean hasFunction(Connection connection, String signature) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT to_regprocedure(?)")) {
            statement.setString(1, signature);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() && row.getString(1) != null;
            }
        }
    }

    /** The columns the statements use that the table lacks, in the migration's order. */
    private static List<String> missingColumns(Connection connection, String table) throws SQLException {
        List<String> missing = new ArrayList<>(COLUMNS);
        try (PreparedStatement statement = connection.prepareStatement("SELECT attname FROM pg_attribute "
                + "WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped")) {
            statement.setString(1, table);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    missing.remove(rows.getString(1));
                }
            }
        }
        return missing;
    }
}
