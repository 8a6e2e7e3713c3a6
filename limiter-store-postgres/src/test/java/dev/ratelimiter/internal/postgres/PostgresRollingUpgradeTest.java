package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One step of a rolling upgrade (docs/stores.md#upgrades), applied by Flyway as an application applies it: the
 * baseline migration, then a next one (src/test/resources/db/ratelimiter-next/postgres) that adds the decide
 * function's next version beside the current one, as a release that changes the function ships it. Replicas of the
 * previous version, still calling {@link DecideFunction#CURRENT}, keep deciding on the same rows, their startup check
 * and probe passing, beside replicas that call the next version; a next migration that dropped or broke the previous
 * function fails this test. Every decision here goes through the function (a call of two items), not the one-item
 * statements, which call no function.
 */
class PostgresRollingUpgradeTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final String TABLE = PostgresChain.TABLE;
    private static final DecideFunction NEXT = new DecideFunction(2, "V2__decide_v2_beside_v1.sql");

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
    @DisplayName("a next migration adds decide_v2 beside decide_v1: the previous version's replicas keep calling v1 on "
            + "the same rows, their check and probe passing, beside replicas calling v2; the startup check names the "
            + "next migration until it is applied; once a later release drops v1, only the previous version fails")
    void previousVersionKeepsDeciding() throws Exception {
        assertThat(flyway().load().migrate().migrationsExecuted).as("the baseline").isEqualTo(1);
        ManualClock clock = new ManualClock(T0);
        Bucket fixed = Bucket.of("upgrade-fixed", 5, Duration.ofSeconds(60));
        Bucket sliding = Bucket.of("upgrade-sliding", List.of(new Limit(9, Duration.ofSeconds(60))),
                OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        List<StoreItem> call = List.of(new StoreItem(fixed, "k", 1), new StoreItem(sliding, "k", 1));
        try (HikariDataSource pool = PostgresTarget.pool(schema, 2)) {
            PostgresStore previous = new PostgresStore(pool, TABLE, Duration.ofSeconds(10), 2, Optional.of(clock),
                    ConnectionEviction.ABORT);
            PostgresStore next = new PostgresStore(pool, TABLE, Duration.ofSeconds(10), 2, Optional.of(clock),
                    ConnectionEviction.ABORT, NEXT);
            assertThat(previous.check()).isEmpty();
            assertThat(next.check()).as("the next version, before its migration").singleElement().asString()
                    .contains("rate_limit_counters_decide_v2").contains("V2__decide_v2_beside_v1.sql");
            assertThat(previous.consume(call)).as("fixed: allowed, count, ms left; sliding: allowed, cur, prev, r")
                    .containsExactly(1, 1, 60_000, 1, 1, 0, 60_000);

            assertThat(flyway().locations("classpath:db/ratelimiter/postgres", "classpath:db/ratelimiter-next/postgres")
                    .load().migrate().migrationsExecuted).as("the next migration").isEqualTo(1);

            clock.advance(Duration.ofSeconds(1));
            assertThat(previous.check()).as("the previous version, after the next migration").isEmpty();
            previous.probe();
            assertThat(previous.consume(call)).containsExactly(1, 2, 59_000, 1, 2, 0, 59_000);
            assertThat(next.check()).isEmpty();
            next.probe();
            assertThat(next.consume(call)).as("the same rows").containsExactly(1, 3, 59_000, 1, 3, 0, 59_000);
            long[][] batch = next.consumeEach(List.of(call, call));
            assertThat(batch[0]).containsExactly(1, 4, 59_000, 1, 4, 0, 59_000);
            assertThat(batch[1]).containsExactly(1, 5, 59_000, 1, 5, 0, 59_000);
            assertThat(previous.consume(call)).as("refused on the count the next version left")
                    .containsExactly(0, 5, 59_000);

            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP FUNCTION " + TABLE + "_decide_v1(timestamptz, varchar[], bigint[])");
            }
            assertThatThrownBy(previous::probe).as("the previous version did call v1").isInstanceOf(StoreException.class)
                    .rootCause().hasMessageContaining("rate_limit_counters_decide_v1");
            assertThat(previous.check()).singleElement().asString().contains("rate_limit_counters_decide_v1")
                    .contains("V1__rate_limit_counters.sql");
            assertThat(next.check()).isEmpty();
            next.probe();
            assertThat(next.consume(call)).as("v2 stands on its own").containsExactly(0, 5, 59_000);
        }
    }

    private FluentConfiguration flyway() {
        return Flyway.configure()
                .dataSource(PostgresTarget.url(), PostgresTarget.user(), PostgresTarget.password())
                .schemas(schema)
                .createSchemas(true)
                .locations("classpath:db/ratelimiter/postgres")
                .table("flyway_ratelimiter_history");
    }
}
