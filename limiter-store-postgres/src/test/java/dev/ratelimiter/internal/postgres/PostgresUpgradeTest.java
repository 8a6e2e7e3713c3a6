package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.spi.StoreItem;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migrations V7 to V10 applied by Flyway, as an application upgrading applies them, over a table in use at V6:
 * the rows the previous version wrote stay as they were, the table is not rewritten, V6's function still decides for
 * the previous version during a rolling upgrade, and this version goes on from the rows' counts.
 */
class PostgresUpgradeTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final String TABLE = "rate_limit_counters";

    private String schema;

    @BeforeEach
    void schema() {
        schema = "rl_upgrade_" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void drop() {
        PostgresTarget.dropSchema(schema);
    }

    @Test
    @DisplayName("V7 to V10 over V6 with rows of both algorithms: the same rows (every column, same row versions), the same "
            + "table file, the new columns empty; V6's function still counts them; this version goes on from them and "
            + "decides sliding windows beside them; the startup check names V7 until it is applied")
    void v7OverV6KeepsRows() throws Exception {
        flyway().target("6").load().migrate();
        ManualClock clock = new ManualClock(T0);
        Bucket fixed = new Bucket("upgrade-fixed", 10, Duration.ofSeconds(60));
        Bucket fixedTwo = new Bucket("upgrade-fixed-two", List.of(new Bucket.Limit(5, Duration.ofSeconds(10)),
                new Bucket.Limit(20, Duration.ofHours(1))), OutagePolicy.FALLBACK);
        Bucket tokens = new Bucket("upgrade-tokens", List.of(new Bucket.Limit(10, Duration.ofSeconds(10))),
                OutagePolicy.FALLBACK, Bucket.Algorithm.TOKEN_BUCKET, 0);
        Bucket tokensTwo = new Bucket("upgrade-tokens-two", List.of(new Bucket.Limit(2, Duration.ofSeconds(1)),
                new Bucket.Limit(9, Duration.ofHours(1))), OutagePolicy.FALLBACK, Bucket.Algorithm.TOKEN_BUCKET, 0);
        try (HikariDataSource pool = PostgresTarget.pool(schema, 2)) {
            assertThat(PostgresChecks.check(pool, TABLE)).singleElement().asString()
                    .contains("rate_limit_counters_decide_v7").contains("V7__sliding_windows.sql");
            PostgresStore store = new PostgresStore(pool, TABLE, Duration.ofSeconds(10), 2, Optional.of(clock),
                    ConnectionEviction.ABORT);
            // Rows as the previous version writes them: its one-item statements (which V7 leaves as they were) and
            // V6's function.
            assertThat(store.consume(List.of(new StoreItem(fixed, "k", 2)))).containsExactly(1, 2, 60_000);
            assertThat(store.consume(List.of(new StoreItem(fixedTwo, "k", 1))))
                    .containsExactly(1, 1, 10_000, 1, 3_600_000);
            assertThat(store.consume(List.of(new StoreItem(tokens, "k", 3)))).containsExactly(1, 3, 3_000);
            assertThat(decideV6(pool, T0, tokensTwo, "tb:k", 1)).as("the call's count of numbers, then its answer")
                    .containsExactly(5, 1, 1, 500, 1, 400_000);
            List<String> before = rows(pool);
            long file = tableFile(pool);
            assertThat(before).hasSize(4);

            assertThat(flyway().load().migrate().migrationsExecuted).as("V7 to V10").isEqualTo(4);

            assertThat(rows(pool)).as("every row as it was, the same versions").isEqualTo(before);
            assertThat(tableFile(pool)).as("no rewrite").isEqualTo(file);
            assertThat(newColumns(pool)).as("previous, length_seconds, window_previous").containsOnly("null");
            assertThat(PostgresChecks.check(pool, TABLE)).isEmpty();

            clock.advance(Duration.ofSeconds(1));
            assertThat(decideV6(pool, clock.instant(), fixed, "k", 1)).as("the previous version, on V6's function")
                    .containsExactly(3, 1, 3, 59_000);
            assertThat(store.consume(List.of(new StoreItem(fixed, "k", 1)))).containsExactly(1, 4, 59_000);
            assertThat(store.consume(List.of(new StoreItem(fixedTwo, "k", 1))))
                    .containsExactly(1, 2, 9_000, 2, 3_599_000);
            assertThat(store.consume(List.of(new StoreItem(tokens, "k", 0))))
                    .as("3 tokens owed at T0, one back a second later").containsExactly(1, 2, 2_000);
            assertThat(store.consume(List.of(new StoreItem(tokensTwo, "k", 1))))
                    .as("V10's function reads V6's token row").containsExactly(1, 1, 500, 2, 799_000);
            Bucket sliding = new Bucket(fixed.name(), fixed.limits(), OutagePolicy.FALLBACK,
                    Bucket.Algorithm.SLIDING_WINDOW, 0);
            assertThat(store.consume(List.of(new StoreItem(sliding, "k", 1)))).as("a row of its own")
                    .containsExactly(1, 1, 0, 60_000);
            assertThat(store.consume(List.of(new StoreItem(fixed, "k", 0)))).containsExactly(1, 4, 59_000);
        }
    }

    private org.flywaydb.core.api.configuration.FluentConfiguration flyway() {
        return Flyway.configure()
                .dataSource(PostgresTarget.url(), PostgresTarget.user(), PostgresTarget.password())
                .schemas(schema)
                .createSchemas(true)
                .locations("classpath:db/ratelimiter/postgres")
                .table("flyway_ratelimiter_history");
    }

    /** One item through V6's function, as the previous version calls it: the answer of its one call. */
    private static long[] decideV6(HikariDataSource pool, Instant instant, Bucket bucket, String rowKey, long cost)
            throws SQLException {
        List<Long> numbers = new ArrayList<>(List.of(1L, 1L, bucket.isTokenBucket() ? 1L : 0L, cost,
                (long) bucket.limits().size()));
        for (int i = 0; i < bucket.limits().size(); i++) {
            numbers.add(bucket.isTokenBucket() ? bucket.tokenIntervalMicros(i) : bucket.limits().get(i).windowSeconds());
            numbers.add(bucket.isTokenBucket() ? bucket.capacity(i) : bucket.limits().get(i).limit());
        }
        List<String> names = List.of(bucket.name(), rowKey);
        try (Connection connection = pool.getConnection()) {
            return DecideCalls.decide(connection, "rate_limit_counters_decide_v6", instant, names, numbers);
        }
    }

    /** Every row, every column V6 knows and its version (xmin, ctid), as text, in (bucket, key) order. */
    private static List<String> rows(HikariDataSource pool) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection connection = pool.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT concat_ws(' | ', bucket, key, ends_at, "
                     + "count, denied, window_seconds, window_counts, window_ends, token_intervals, token_capacities, "
                     + "xmin, ctid) FROM " + TABLE + " ORDER BY bucket, key");
             ResultSet result = statement.executeQuery()) {
            while (result.next()) {
                rows.add(result.getString(1));
            }
        }
        return rows;
    }

    /** The file that holds the table's rows: a rewrite gives it a new one. */
    private static long tableFile(HikariDataSource pool) throws SQLException {
        try (Connection connection = pool.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT pg_relation_filenode(?::regclass)")) {
            statement.setString(1, TABLE);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static List<String> newColumns(HikariDataSource pool) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection connection = pool.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT coalesce(previous::text, 'null'), "
                     + "coalesce(length_seconds::text, 'null'), coalesce(window_previous::text, 'null') FROM "
                     + TABLE);
             ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                for (int i = 1; i <= 3; i++) {
                    values.add(rows.getString(i));
                }
            }
        }
        return values;
    }
}
