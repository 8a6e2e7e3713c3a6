package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup checks of the DataSource and table: each problem found says what to change; a good pool has none.
 */
class PostgresChecksTest {

    private static final String TABLE = PostgresChain.TABLE;

    private static String schema;
    private static String emptySchema;

    @BeforeAll
    static void migrate() throws SQLException {
        schema = PostgresTarget.newSchema("checks");
        emptySchema = "rl_checks_empty_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection connection = PostgresTarget.dataSource("public").getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + emptySchema);
        }
    }

    @AfterAll
    static void drop() {
        PostgresTarget.dropSchema(schema);
        PostgresTarget.dropSchema(emptySchema);
    }

    @Test
    @DisplayName("the library's own pool on a migrated schema: no problem")
    void goodPool() {
        DataSource pool = HikariPools.create(PostgresChain.settings(
                PostgresChain.url(schema, "rl-checks", Optional.empty()), 2));
        try {
            assertThat(PostgresChecks.check(pool, TABLE)).isEmpty();
            assertThat(PostgresChecks.check(pool, schema + "." + TABLE)).as("schema-qualified").isEmpty();
        } finally {
            HikariPools.close(pool);
        }
    }

    @Test
    @DisplayName("connections not in autocommit: one problem, saying to use a non-transactional pool")
    void notAutocommit() {
        try (HikariDataSource pool = pool(schema, config -> config.setAutoCommit(false))) {
            List<String> problems = PostgresChecks.check(pool, TABLE);
            assertThat(problems).singleElement().asString()
                    .contains("ratelimiter.postgres")
                    .contains("not in autocommit")
                    .contains("non-transactional pool")
                    .contains("transactional=false");
        }
    }

    @Test
    @DisplayName("connections at another isolation level: one problem, saying to set read-committed")
    void notReadCommitted() {
        try (HikariDataSource pool = pool(schema,
                config -> config.setTransactionIsolation("TRANSACTION_SERIALIZABLE"))) {
            assertThat(PostgresChecks.check(pool, TABLE)).singleElement().asString()
                    .contains("isolation level is " + Connection.TRANSACTION_SERIALIZABLE)
                    .contains("read-committed");
        }
    }

    @Test
    @DisplayName("a schema without the migration: one problem naming the table and the migration to apply")
    void missingTable() {
        try (HikariDataSource pool = pool(emptySchema, config -> { })) {
            assertThat(PostgresChecks.check(pool, TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains("'" + TABLE + "' does not exist")
                    .contains("V1__rate_limit_counters.sql")
                    .contains("db/ratelimiter/postgres");
        }
    }

    @Test
    @DisplayName("a table without the columns the statements use: one problem naming them and the migration to apply")
    void missingColumns() throws SQLException {
        String bare = "rl_checks_bare_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection connection = PostgresTarget.dataSource("public").getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + bare);
            statement.execute("CREATE TABLE " + bare + "." + TABLE + " (bucket varchar(64) NOT NULL, key varchar(128) "
                    + "NOT NULL, ends_at timestamptz NOT NULL, count bigint NOT NULL, PRIMARY KEY (bucket, key))");
        }
        try (HikariDataSource pool = pool(bare, config -> { })) {
            assertThat(PostgresChecks.check(pool, TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains("lacks the columns denied, window_seconds, window_counts, window_ends, token_intervals, "
                            + "token_capacities, previous, length_seconds, window_previous;")
                    .contains("V1__rate_limit_counters.sql");
        } finally {
            PostgresTarget.dropSchema(bare);
        }
        try (HikariDataSource pool = pool(schema, config -> { })) {
            assertThat(PostgresChecks.check(pool, TABLE)).as("migrated").isEmpty();
        }
    }

    @Test
    @DisplayName("the check demands the one function the store calls, no other: the migration adds only it, and a "
            + "table without it is one problem naming the function and the migration to apply")
    void missingFunction() throws SQLException, java.io.IOException {
        String noFunction = schemaMigratedBy("rl_checks_function_", "V1__rate_limit_counters.sql");
        try (HikariDataSource pool = pool("public", config -> { })) {
            assertThat(functions(pool, noFunction)).containsExactly("rate_limit_counters_decide_v1");
            assertThat(PostgresChecks.check(pool, noFunction + "." + TABLE)).isEmpty();
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP FUNCTION " + noFunction + ".rate_limit_counters_decide_v1");
            }
            assertThat(PostgresChecks.check(pool, noFunction + "." + TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains(noFunction + ".rate_limit_counters_decide_v1")
                    .contains("V1__rate_limit_counters.sql");
        } finally {
            PostgresTarget.dropSchema(noFunction);
        }
    }

    @Test
    @DisplayName("the breaker's probe runs the function's path too: it fails on a table without the function, passes "
            + "once the migration is applied, and fails again when the function is dropped")
    void probeNeedsFunction() throws Exception {
        String noFunction = schemaMigratedBy("rl_checks_probe_", "V1__rate_limit_counters.sql");
        try (HikariDataSource pool = pool(noFunction, config -> { })) {
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP FUNCTION rate_limit_counters_decide_v1");
            }
            PostgresStore store = new PostgresStore(pool, TABLE, java.time.Duration.ofSeconds(10), 1,
                    Optional.empty(), ConnectionEviction.ABORT);
            org.assertj.core.api.Assertions.assertThatThrownBy(store::probe)
                    .isInstanceOf(dev.ratelimiter.spi.StoreException.class);
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute(java.nio.file.Files.readString(java.nio.file.Path.of("../migrations/postgres",
                        "V1__rate_limit_counters.sql")));
            }
            store.probe();
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP FUNCTION " + noFunction + ".rate_limit_counters_decide_v1");
            }
            org.assertj.core.api.Assertions.assertThatThrownBy(store::probe)
                    .isInstanceOf(dev.ratelimiter.spi.StoreException.class)
                    .rootCause().hasMessageContaining("rate_limit_counters_decide_v1");
        } finally {
            PostgresTarget.dropSchema(noFunction);
        }
    }

    @Test
    @DisplayName("autocommit off and no table: both problems, each on its own")
    void bothProblems() {
        try (HikariDataSource pool = pool(emptySchema, config -> config.setAutoCommit(false))) {
            List<String> problems = PostgresChecks.check(pool, TABLE);
            assertThat(problems).hasSize(2);
            assertThat(problems.get(0)).contains("autocommit");
            assertThat(problems.get(1)).contains("does not exist");
        }
    }

    @Test
    @DisplayName("a database that cannot be reached: no problem reported (the application starts degraded)")
    void unreachable() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            closedPort = socket.getLocalPort();
        }
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setUrl(PostgresChain.url(schema, "rl-checks", Optional.of(closedPort)));
        nowhere.setUser(PostgresTarget.user());
        nowhere.setConnectTimeout(2);
        assertThat(PostgresChecks.check(nowhere, TABLE)).isEmpty();
    }

    /** A new schema {@code prefix<random>} with the given files of migrations/postgres applied by hand, in order. */
    private static String schemaMigratedBy(String prefix, String... migrations)
            throws SQLException, java.io.IOException {
        String name = prefix + UUID.randomUUID().toString().substring(0, 8);
        try (Connection connection = PostgresTarget.dataSource("public").getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + name);
            statement.execute("SET search_path TO " + name);
            for (String migration : migrations) {
                statement.execute(java.nio.file.Files.readString(java.nio.file.Path.of("../migrations/postgres",
                        migration)));
            }
        }
        return name;
    }

    /** The functions in {@code schema}, by name. */
    private static List<String> functions(DataSource dataSource, String schema) throws SQLException {
        List<String> names = new java.util.ArrayList<>();
        try (Connection connection = dataSource.getConnection();
             java.sql.PreparedStatement statement = connection.prepareStatement("SELECT p.proname FROM pg_proc p "
                     + "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ? ORDER BY 1")) {
            statement.setString(1, schema);
            try (java.sql.ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        }
        return names;
    }

    private static HikariDataSource pool(String schema, java.util.function.Consumer<HikariConfig> change) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(PostgresTarget.url());
        config.setUsername(PostgresTarget.user());
        config.setPassword(PostgresTarget.password());
        config.setSchema(schema);
        config.setMaximumPoolSize(1);
        change.accept(config);
        return new HikariDataSource(config);
    }
}
