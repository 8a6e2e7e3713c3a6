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
                    .contains("V1__create_rate_limit_counters.sql")
                    .contains("db/ratelimiter/postgres");
        }
    }

    @Test
    @DisplayName("a table migrated to V1 only: one problem naming the table and the migration V2 to apply")
    void missingV2() throws SQLException, java.io.IOException {
        String v1Only = schemaMigratedBy("rl_checks_v1_", "V1__create_rate_limit_counters.sql");
        try (HikariDataSource pool = pool(v1Only, config -> { })) {
            assertThat(PostgresChecks.check(pool, TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains("V2__several_windows_and_costs.sql")
                    .contains("denied, window_seconds");
        } finally {
            PostgresTarget.dropSchema(v1Only);
        }
        try (HikariDataSource pool = pool(schema, config -> { })) {
            assertThat(PostgresChecks.check(pool, TABLE)).as("migrated to the last version").isEmpty();
        }
    }

    @Test
    @DisplayName("a table migrated to V2 only: one problem naming the missing function and the migration V3 to apply")
    void missingV3() throws SQLException, java.io.IOException {
        String v2Only = schemaMigratedBy("rl_checks_v2_", "V1__create_rate_limit_counters.sql",
                "V2__several_windows_and_costs.sql");
        try (HikariDataSource pool = pool("public", config -> { })) {
            assertThat(PostgresChecks.check(pool, v2Only + "." + TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains(v2Only + ".rate_limit_counters_consume")
                    .contains("V3__several_buckets_in_one_statement.sql");
        } finally {
            PostgresTarget.dropSchema(v2Only);
        }
    }

    @Test
    @DisplayName("a table migrated to V3 only: one problem naming the missing batch function and the migration V4")
    void missingV4() throws SQLException, java.io.IOException {
        String v3Only = schemaMigratedBy("rl_checks_v3_", "V1__create_rate_limit_counters.sql",
                "V2__several_windows_and_costs.sql", "V3__several_buckets_in_one_statement.sql");
        try (HikariDataSource pool = pool("public", config -> { })) {
            assertThat(PostgresChecks.check(pool, v3Only + "." + TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains(v3Only + ".rate_limit_counters_consume_each")
                    .contains("V4__decisions_in_batches.sql");
        } finally {
            PostgresTarget.dropSchema(v3Only);
        }
    }

    @Test
    @DisplayName("a table migrated to V4 only: one problem naming the missing function of V5 and the migration")
    void missingV5() throws SQLException, java.io.IOException {
        String v4Only = schemaMigratedBy("rl_checks_v4_", "V1__create_rate_limit_counters.sql",
                "V2__several_windows_and_costs.sql", "V3__several_buckets_in_one_statement.sql",
                "V4__decisions_in_batches.sql");
        try (HikariDataSource pool = pool("public", config -> { })) {
            assertThat(PostgresChecks.check(pool, v4Only + "." + TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains(v4Only + ".rate_limit_counters_decide")
                    .contains("V5__one_statement_per_item.sql");
        } finally {
            PostgresTarget.dropSchema(v4Only);
        }
    }

    @Test
    @DisplayName("a table migrated to V5 only: one problem naming the missing function of V6 and the migration")
    void missingV6() throws SQLException, java.io.IOException {
        String v5Only = schemaMigratedBy("rl_checks_v5_", "V1__create_rate_limit_counters.sql",
                "V2__several_windows_and_costs.sql", "V3__several_buckets_in_one_statement.sql",
                "V4__decisions_in_batches.sql", "V5__one_statement_per_item.sql");
        try (HikariDataSource pool = pool("public", config -> { })) {
            assertThat(PostgresChecks.check(pool, v5Only + "." + TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains(v5Only + ".rate_limit_counters_decide_v6")
                    .contains("V6__token_buckets.sql");
        } finally {
            PostgresTarget.dropSchema(v5Only);
        }
    }

    @Test
    @DisplayName("a table migrated to V6 only: one problem naming the missing function of V7 and the migration")
    void missingV7() throws SQLException, java.io.IOException {
        String v6Only = schemaMigratedBy("rl_checks_v6_", "V1__create_rate_limit_counters.sql",
                "V2__several_windows_and_costs.sql", "V3__several_buckets_in_one_statement.sql",
                "V4__decisions_in_batches.sql", "V5__one_statement_per_item.sql", "V6__token_buckets.sql");
        try (HikariDataSource pool = pool("public", config -> { })) {
            assertThat(PostgresChecks.check(pool, v6Only + "." + TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains(v6Only + ".rate_limit_counters_decide_v7")
                    .contains("V7__sliding_windows.sql");
        } finally {
            PostgresTarget.dropSchema(v6Only);
        }
    }

    @Test
    @DisplayName("a table migrated to V7 only: one problem naming the missing function of V8 and the migration")
    void missingV8() throws SQLException, java.io.IOException {
        String v7Only = schemaMigratedBy("rl_checks_v7_", "V1__create_rate_limit_counters.sql",
                "V2__several_windows_and_costs.sql", "V3__several_buckets_in_one_statement.sql",
                "V4__decisions_in_batches.sql", "V5__one_statement_per_item.sql", "V6__token_buckets.sql",
                "V7__sliding_windows.sql");
        try (HikariDataSource pool = pool("public", config -> { })) {
            assertThat(PostgresChecks.check(pool, v7Only + "." + TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains(v7Only + ".rate_limit_counters_decide_v8")
                    .contains("V8__plans.sql");
        } finally {
            PostgresTarget.dropSchema(v7Only);
        }
    }

    @Test
    @DisplayName("a table migrated to V8 only: one problem naming the missing function of V9 and the migration")
    void missingV9() throws SQLException, java.io.IOException {
        String v8Only = schemaMigratedBy("rl_checks_v8_", "V1__create_rate_limit_counters.sql",
                "V2__several_windows_and_costs.sql", "V3__several_buckets_in_one_statement.sql",
                "V4__decisions_in_batches.sql", "V5__one_statement_per_item.sql", "V6__token_buckets.sql",
                "V7__sliding_windows.sql", "V8__plans.sql");
        try (HikariDataSource pool = pool("public", config -> { })) {
            assertThat(PostgresChecks.check(pool, v8Only + "." + TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains(v8Only + ".rate_limit_counters_decide_v9")
                    .contains("V9__settings_changes.sql");
        } finally {
            PostgresTarget.dropSchema(v8Only);
        }
    }

    @Test
    @DisplayName("a table migrated to V9 only: one problem naming the missing function of V10 and the migration")
    void missingV10() throws SQLException, java.io.IOException {
        String v9Only = schemaMigratedBy("rl_checks_v9_", "V1__create_rate_limit_counters.sql",
                "V2__several_windows_and_costs.sql", "V3__several_buckets_in_one_statement.sql",
                "V4__decisions_in_batches.sql", "V5__one_statement_per_item.sql", "V6__token_buckets.sql",
                "V7__sliding_windows.sql", "V8__plans.sql", "V9__settings_changes.sql");
        try (HikariDataSource pool = pool("public", config -> { })) {
            assertThat(PostgresChecks.check(pool, v9Only + "." + TABLE)).singleElement().asString()
                    .contains("ratelimiter.postgres.table")
                    .contains(v9Only + ".rate_limit_counters_decide_v10")
                    .contains("V10__sliding_windows_in_batches.sql");
        } finally {
            PostgresTarget.dropSchema(v9Only);
        }
    }

    @Test
    @DisplayName("the breaker's probe runs the function's path too: it fails on a table migrated to V9 only, "
            + "passes once V10 is applied, and fails again when V10's function is dropped")
    void probeNeedsV10Function() throws Exception {
        String v9Only = schemaMigratedBy("rl_checks_probe_", "V1__create_rate_limit_counters.sql",
                "V2__several_windows_and_costs.sql", "V3__several_buckets_in_one_statement.sql",
                "V4__decisions_in_batches.sql", "V5__one_statement_per_item.sql", "V6__token_buckets.sql",
                "V7__sliding_windows.sql", "V8__plans.sql", "V9__settings_changes.sql");
        try (HikariDataSource pool = pool(v9Only, config -> { })) {
            PostgresStore store = new PostgresStore(pool, TABLE, java.time.Duration.ofSeconds(10), 1,
                    Optional.empty(), ConnectionEviction.ABORT);
            org.assertj.core.api.Assertions.assertThatThrownBy(store::probe)
                    .isInstanceOf(dev.ratelimiter.spi.StoreException.class);
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute(java.nio.file.Files.readString(java.nio.file.Path.of("../migrations/postgres",
                        "V10__sliding_windows_in_batches.sql")));
            }
            store.probe();
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP FUNCTION " + v9Only + ".rate_limit_counters_decide_v10");
            }
            org.assertj.core.api.Assertions.assertThatThrownBy(store::probe)
                    .isInstanceOf(dev.ratelimiter.spi.StoreException.class)
                    .rootCause().hasMessageContaining("rate_limit_counters_decide_v10");
        } finally {
            PostgresTarget.dropSchema(v9Only);
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
