package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.ErrorDescriptions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the library checks of its DataSource at startup: the counter update must never join the application's
 * transaction (it would roll back with it and hold its row lock for the whole business transaction), so the
 * connections must be in autocommit at READ COMMITTED; and the table must exist, with the columns of every
 * migration (V2 adds those of several windows and of refusals that count nothing) and the functions V3 to V10 add.
 */
public final class PostgresChecks {

    private static final System.Logger LOG = System.getLogger(PostgresChecks.class.getName());

    private PostgresChecks() {
    }

    /**
     * Checks that the DataSource is non-transactional and READ COMMITTED and that the table has every migration.
     *
     * @param dataSource the store's DataSource
     * @param table      the counter table, optionally schema-qualified
     * @return the problems found, each saying what to change; empty when all is well, and also when the database
     *         cannot be reached (the application then starts degraded, and a warning is logged)
     */
    public static List<String> check(DataSource dataSource, String table) {
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
            try (PreparedStatement statement = connection.prepareStatement("SELECT to_regclass(?)")) {
                statement.setString(1, table);
                try (ResultSet row = statement.executeQuery()) {
                    if (!row.next() || row.getString(1) == null) {
                        problems.add("ratelimiter.postgres.table: table '" + table + "' does not exist; apply the "
                                + "migrations V1__create_rate_limit_counters.sql, V2__several_windows_and_costs.sql, "
                                + "V3__several_buckets_in_one_statement.sql, V4__decisions_in_batches.sql, "
                                + "V5__one_statement_per_item.sql, V6__token_buckets.sql, V7__sliding_windows.sql, "
                                + "V8__plans.sql, V9__settings_changes.sql and V10__sliding_windows_in_batches.sql "
                                + "(in limiter-store-postgres's jar at db/ratelimiter/postgres, for Flyway: "
                                + "locations=classpath:db/ratelimiter/postgres with table=flyway_ratelimiter_history)");
                    } else if (!hasV2Columns(connection, table)) {
                        problems.add("ratelimiter.postgres.table: table '" + table + "' lacks the columns of the "
                                + "migration V2__several_windows_and_costs.sql (denied, window_seconds, window_counts, "
                                + "window_ends); apply it after V1 (in limiter-store-postgres's jar at "
                                + "db/ratelimiter/postgres, or migrations/postgres by hand)");
                    } else {
                        missingFunction(connection, table).ifPresent(problems::add);
                    }
                }
            }
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter could not check its PostgreSQL DataSource at startup ("
                    + ErrorDescriptions.describe(PostgresFailures.explained(e))
                    + "); starting, and the breaker decides");
        }
        return problems;
    }

    /**
     * The first function of V3 to V10 missing beside the table, as a problem naming it and its migration. The
     * store calls V10's only; an earlier one missing means the migrations were not applied in order. V6's and V7's
     * functions come with their migration's columns, so finding them finds those.
     */
    private static Optional<String> missingFunction(Connection connection, String table) throws SQLException {
        String[][] functions = {
            {CounterStatements.consumeFunctionSignature(table), CounterStatements.consumeFunction(table),
                "V3__several_buckets_in_one_statement.sql after V2"},
            {CounterStatements.consumeEachFunctionSignature(table), CounterStatements.consumeEachFunction(table),
                "V4__decisions_in_batches.sql after V3"},
            {CounterStatements.decideV5FunctionSignature(table), CounterStatements.decideV5Function(table),
                "V5__one_statement_per_item.sql after V4"},
            {CounterStatements.decideV6FunctionSignature(table), CounterStatements.decideV6Function(table),
                "V6__token_buckets.sql after V5"},
            {CounterStatements.decideV7FunctionSignature(table), CounterStatements.decideV7Function(table),
                "V7__sliding_windows.sql after V6"},
            {CounterStatements.decideV8FunctionSignature(table), CounterStatements.decideV8Function(table),
                "V8__plans.sql after V7"},
            {CounterStatements.decideV9FunctionSignature(table), CounterStatements.decideV9Function(table),
                "V9__settings_changes.sql after V8"},
            {CounterStatements.decideFunctionSignature(table), CounterStatements.decideFunction(table),
                "V10__sliding_windows_in_batches.sql after V9"}};
        for (String[] function : functions) {
            if (!hasFunction(connection, function[0])) {
                return Optional.of("ratelimiter.postgres.table: the function " + function[1] + " beside table '"
                        + table + "' is missing; apply the migration " + function[2] + " (in limiter-store-postgres's "
                        + "jar at db/ratelimiter/postgres, or migrations/postgres by hand), in the table's schema");
            }
        }
        return Optional.empty();
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

    /** Whether the table has the four columns V2 adds. */
    private static boolean hasV2Columns(Connection connection, String table) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT count(*) FROM pg_attribute "
                + "WHERE attrelid = to_regclass(?) AND NOT attisdropped "
                + "AND attname IN ('denied', 'window_seconds', 'window_counts', 'window_ends')")) {
            statement.setString(1, table);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() && row.getInt(1) == 4;
            }
        }
    }
}
