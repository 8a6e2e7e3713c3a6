package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.contract.Capability;
import dev.ratelimiter.contract.RateLimiterContract;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole contract suite against PostgreSQL, driven by the bound instant (the statement's time is the test's
 * clock), in a schema of this class's own, migrated by Flyway.
 */
class PostgresStoreTest extends RateLimiterContract {

    private static String schema;
    private static com.zaxxer.hikari.HikariDataSource dataSource;

    /** The second replica's own pool on the same database, made by the case that asks for it. */
    private com.zaxxer.hikari.HikariDataSource replicaPool;

    @BeforeAll
    static void migrate() {
        schema = PostgresTarget.newSchema("contract");
        dataSource = PostgresTarget.pool(schema, 16);
    }

    @AfterAll
    static void drop() {
        dataSource.close();
        PostgresTarget.dropSchema(schema);
    }

    @Override
    protected Limiter newLimiter(InstantSource clock) {
        return new StoreLimiter(new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 32,
                Optional.of(clock), ConnectionEviction.ABORT), new BackendMonitor("postgres", clock, RateLimiterMetrics.NONE), RateLimiterMetrics.NONE);
    }

    /**
     * Another replica: a limiter of its own over a store of its own, on a pool of its own on the same database and
     * schema, so the cases of two replicas (one killed with its permits held, two racing for the same permits) go
     * through two pools, as two processes would. On the same bound clock: the statements' instant is the test's.
     */
    @Override
    protected Limiter replica() {
        if (replicaPool == null) {
            replicaPool = PostgresTarget.pool(schema, 8);
        }
        return new StoreLimiter(new PostgresStore(replicaPool, "rate_limit_counters", Duration.ofSeconds(10), 32,
                Optional.of(clock), ConnectionEviction.ABORT), new BackendMonitor("postgres", clock,
                RateLimiterMetrics.NONE), RateLimiterMetrics.NONE);
    }

    @AfterEach
    void closeReplica() {
        if (replicaPool != null) {
            replicaPool.close();
            replicaPool = null;
        }
    }

    @Override
    protected Set<Capability> capabilities() {
        return Capability.declaredBy(new PostgresStoreProvider());
    }

    @Override
    protected Map<String, String> casesNotRun() {
        String reason = "in production the window's end is the database server's statement_timestamp() plus the "
                + "window, the server's wall clock, which the library cannot make forward-only; the test binds "
                + "instants only to reach the other cases' exact edges";
        return Map.of("clockSteppedBackKeepsNoWindowShutLonger", reason,
                "clockJumpingBothWaysKeepsNoWindowShutLonger", reason);
    }

    @Test
    @DisplayName("the migrations make the table, its primary key (bucket, key) and the sweep's index on ends_at")
    void migrationApplied() throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT indexdef FROM pg_indexes WHERE schemaname = ? AND tablename = 'rate_limit_counters'")) {
            statement.setString(1, schema);
            StringBuilder indexes = new StringBuilder();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    indexes.append(rows.getString(1)).append('\n');
                }
            }
            assertThat(indexes.toString()).contains("(bucket, key)").contains("(ends_at)");
        }
    }

    @Test
    @DisplayName("rows hold the hashed key as given, never more; the counter row ends one window after the first attempt")
    void rowLayout() throws SQLException {
        Bucket bucket = bucket("row", 5, Duration.ofSeconds(60));
        limiter.consume(bucket, "hashed-key");
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT key, count, ends_at FROM rate_limit_counters WHERE bucket = ?")) {
            statement.setString(1, bucket.name());
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).isEqualTo("hashed-key");
                assertThat(row.getLong(2)).isEqualTo(1);
                assertThat(row.getObject(3, java.time.OffsetDateTime.class).toInstant())
                        .isEqualTo(START.plusSeconds(60));
            }
        }
    }

    @Test
    @DisplayName("several windows: one row per key holds each window's length, count and end; ends_at is the last end, so the sweep keeps the row until every window has ended; a refusal changes no count")
    void severalWindowsRowLayout() throws SQLException {
        Bucket bucket = Bucket.of(bucket("rows", 1, Duration.ofSeconds(1)).name(),
                List.of(new Limit(2, Duration.ofSeconds(10)), new Limit(5, Duration.ofHours(1))),
                dev.ratelimiter.OutagePolicy.FALLBACK);
        limiter.consume(bucket, "hashed-key", 2);
        limiter.consume(bucket, "hashed-key", 1);
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT count, ends_at, denied, "
                     + "window_seconds::text, window_counts::text, window_ends[1] FROM rate_limit_counters "
                     + "WHERE bucket = ? AND key = 'hashed-key'")) {
            statement.setString(1, bucket.name());
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getLong(1)).isEqualTo(2);
                assertThat(row.getObject(2, java.time.OffsetDateTime.class).toInstant())
                        .isEqualTo(START.plusSeconds(3600));
                assertThat(row.getBoolean(3)).as("the last call was refused").isTrue();
                assertThat(row.getString(4)).isEqualTo("{10,3600}");
                assertThat(row.getString(5)).isEqualTo("{2,2}");
                assertThat(row.getObject(6, java.time.OffsetDateTime.class).toInstant())
                        .isEqualTo(START.plusSeconds(10));
                assertThat(row.next()).isFalse();
            }
        }
    }

    @Test
    @DisplayName("the time left is exact on one connection before and after pgjdbc prepares the statement (text, then binary)")
    void timeLeftBeforeAndAfterServerPrepare() {
        try (com.zaxxer.hikari.HikariDataSource one = PostgresTarget.pool(schema, 1)) {
            Limiter store = new StoreLimiter(new PostgresStore(one, "rate_limit_counters", Duration.ofSeconds(10), 1,
                    Optional.of(clock), ConnectionEviction.ABORT), new BackendMonitor("postgres", clock,
                    RateLimiterMetrics.NONE), RateLimiterMetrics.NONE);
            Bucket bucket = bucket("prepare", 100, Duration.ofSeconds(60));
            for (int attempt = 0; attempt < 12; attempt++) {
                Verdict verdict = store.consume(bucket, "hashed-key");
                assertThat(verdict.outcome()).isEqualTo(Verdict.Outcome.ALLOWED);
                assertThat(verdict.remaining()).isEqualTo(99 - attempt);
                assertThat(verdict.resetAfter()).as("attempt %d", attempt)
                        .isEqualTo(Duration.ofSeconds(60).minusMillis(1_500L * attempt));
                clock.advance(Duration.ofMillis(1_500));
            }
        }
    }

    @Test
    @DisplayName("the library's own pool keeps the call's network timeout on its connection; a server's pool gets its own back")
    void networkTimeoutKeptOrPutBack() throws SQLException {
        Bucket bucket = bucket("timeout", 100, Duration.ofSeconds(60));
        for (boolean ownPool : new boolean[] {true, false}) {
            try (com.zaxxer.hikari.HikariDataSource one = PostgresTarget.pool(schema, 1)) {
                Limiter store = new StoreLimiter(new PostgresStore(one, "rate_limit_counters", Duration.ofSeconds(10), 1,
                        Optional.of(clock), ConnectionEviction.ABORT, ownPool), new BackendMonitor("postgres",
                        clock, RateLimiterMetrics.NONE), RateLimiterMetrics.NONE);
                int before;
                try (Connection connection = one.getConnection()) {
                    before = connection.unwrap(Connection.class).getNetworkTimeout();
                }
                assertThat(store.consume(bucket, "hashed-key").outcome()).isEqualTo(Verdict.Outcome.ALLOWED);
                try (Connection connection = one.getConnection()) {
                    assertThat(connection.unwrap(Connection.class).getNetworkTimeout())
                            .isEqualTo(ownPool ? 15_000 : before);
                }
                assertThat(store.consume(bucket, "hashed-key").remaining()).isEqualTo(ownPool ? 98 : 96);
            }
        }
    }

    @Test
    @DisplayName("two items in one call: decided in order on one connection; the first refusal stops the call, so a later item is neither answered nor counted")
    void twoItemsInOneCall() throws Exception {
        Bucket single = bucket("items-a", 5, Duration.ofSeconds(60));
        Bucket several = Bucket.of(bucket("items-b", 1, Duration.ofSeconds(1)).name(),
                List.of(new Limit(1, Duration.ofSeconds(10)), new Limit(3, Duration.ofHours(1))),
                dev.ratelimiter.OutagePolicy.FALLBACK);
        PostgresStore store = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 4,
                Optional.of(clock), ConnectionEviction.ABORT);

        assertThat(store.consume(List.of(new StoreItem(single, "k", 1), new StoreItem(several, "k", 1))))
                .as("both allowed: each item's flag, then each window's count and time left")
                .containsExactly(1, 1, 60_000, 1, 1, 10_000, 1, 3_600_000);

        clock.advance(Duration.ofSeconds(1));
        assertThat(store.consume(List.of(new StoreItem(several, "k", 1), new StoreItem(single, "k", 1))))
                .as("the first item refused: the answer ends with it")
                .containsExactly(0, 1, 9_000, 1, 3_599_000);
        assertThat(store.consume(List.of(new StoreItem(single, "k", 0))))
                .as("the item after the refusal was not counted")
                .containsExactly(1, 1, 59_000);
    }

    @Test
    @DisplayName("settings changed, in the function (calls of several items): rows left by a 60 s window decided "
            + "under 2 s keep their counts, and a refusal writes them within 2 s, so the next window, refill or slide "
            + "comes when the refusal said (docs/stores.md#counters-across-a-change-of-settings)")
    void functionBringsRowsWithinAShortenedWindow() throws Exception {
        PostgresStore store = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 4,
                Optional.of(clock), ConnectionEviction.ABORT);
        Bucket other = bucket("fn-changed-other", 100, Duration.ofSeconds(60));
        Bucket fixed = bucket("fn-changed-fixed", 3, Duration.ofSeconds(60));
        Bucket fixedAfter = Bucket.of(fixed.name(), 3, Duration.ofSeconds(2));
        Bucket tokens = tokenBucket("fn-changed-tokens", 0, new Limit(4, Duration.ofSeconds(60)));
        Bucket tokensAfter = Bucket.of(tokens.name(), List.of(new Limit(4, Duration.ofSeconds(2))),
                dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        Bucket sliding = slidingWindow("fn-changed-sliding", new Limit(4, Duration.ofSeconds(60)));
        Bucket slidingAfter = Bucket.of(sliding.name(), List.of(new Limit(4, Duration.ofSeconds(2))),
                dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        assertThat(store.consume(List.of(new StoreItem(fixed, "k", 3)))).containsExactly(1, 3, 60_000);
        assertThat(store.consume(List.of(new StoreItem(tokens, "k", 4)))).containsExactly(1, 4, 60_000);
        assertThat(store.consume(List.of(new StoreItem(sliding, "k", 4)))).containsExactly(1, 4, 0, 60_000);

        assertThat(store.consume(List.of(new StoreItem(other, "a", 1), new StoreItem(fixedAfter, "k", 1))))
                .as("the 3 counted, their window ending within 2 s").containsExactly(1, 1, 60_000, 0, 3, 2_000);
        assertThat(store.consume(List.of(new StoreItem(other, "b", 1), new StoreItem(tokensAfter, "k", 1))))
                .as("4 tokens missing, full in 2 s").containsExactly(1, 1, 60_000, 0, 4, 2_000);
        assertThat(store.consume(List.of(new StoreItem(other, "c", 1), new StoreItem(slidingAfter, "k", 1))))
                .as("the 4 counted, their window ending within 2 s").containsExactly(1, 1, 60_000, 0, 4, 0, 2_000);

        clock.advance(Duration.ofSeconds(1));
        assertThat(store.consume(List.of(new StoreItem(other, "d", 1), new StoreItem(tokensAfter, "k", 1))))
                .as("a second later, 2 tokens back: one taken").containsExactly(1, 1, 60_000, 1, 3, 1_500);
        clock.advance(Duration.ofSeconds(1));
        assertThat(store.consume(List.of(new StoreItem(other, "e", 1), new StoreItem(fixedAfter, "k", 1))))
                .as("2 s later, a new window").containsExactly(1, 1, 60_000, 1, 1, 2_000);
        clock.advance(Duration.ofSeconds(1));
        assertThat(store.consume(List.of(new StoreItem(other, "f", 1), new StoreItem(slidingAfter, "k", 1))))
                .as("3 s later, the 4 weigh 4 x 1 s / 2 s").containsExactly(1, 1, 60_000, 1, 1, 4, 1_000);
    }

    @Test
    @DisplayName("several items are one statement on the server: the migration's function, whatever the items")
    void severalItemsOneStatement() throws Exception {
        List<String> prepared = new java.util.concurrent.CopyOnWriteArrayList<>();
        PostgresStore store = new PostgresStore(recording(dataSource, prepared), "rate_limit_counters",
                Duration.ofSeconds(10), 4, Optional.of(clock), ConnectionEviction.ABORT);
        Bucket one = bucket("statement-a", 5, Duration.ofSeconds(60));
        Bucket two = Bucket.of("statement-b", List.of(new Limit(2, Duration.ofSeconds(1)),
                new Limit(9, Duration.ofHours(1))), dev.ratelimiter.OutagePolicy.FALLBACK);

        store.consume(List.of(new StoreItem(one, "k", 1), new StoreItem(two, "k", 2), new StoreItem(one, "j", 0)));

        assertThat(prepared).singleElement().asString().contains("rate_limit_counters_decide_v1(");
    }

    @Test
    @DisplayName("a token bucket is one statement per call: one window counted, the upsert; a check, the read; several "
            + "windows, the function; a token bucket among fixed windows, the function too")
    void tokenBucketOneStatementPerCall() throws Exception {
        List<String> prepared = new java.util.concurrent.CopyOnWriteArrayList<>();
        PostgresStore store = new PostgresStore(recording(dataSource, prepared), "rate_limit_counters",
                Duration.ofSeconds(10), 4, Optional.of(clock), ConnectionEviction.ABORT);
        Bucket one = tokenBucket("statement-tb-one", 0, new Limit(10, Duration.ofSeconds(10)));
        Bucket two = tokenBucket("statement-tb-two", 0, new Limit(2, Duration.ofSeconds(1)),
                new Limit(9, Duration.ofHours(1)));
        Bucket fixed = bucket("statement-tb-fixed", 5, Duration.ofSeconds(60));

        assertThat(store.consume(List.of(new StoreItem(one, "k", 1)))).containsExactly(1, 1, 1_000);
        assertThat(store.consume(List.of(new StoreItem(one, "k", 0)))).containsExactly(1, 1, 1_000);
        assertThat(store.consume(List.of(new StoreItem(two, "k", 1))))
                .as("each window's tokens not available and time until full")
                .containsExactly(1, 1, 500, 1, 400_000);
        assertThat(store.consume(List.of(new StoreItem(two, "k", 0)))).containsExactly(1, 1, 500, 1, 400_000);
        assertThat(store.consume(List.of(new StoreItem(fixed, "k", 1), new StoreItem(one, "k", 2))))
                .containsExactly(1, 1, 60_000, 1, 3, 3_000);

        assertThat(prepared).hasSize(5);
        assertThat(prepared.get(0)).startsWith("INSERT INTO rate_limit_counters").contains("token_intervals");
        assertThat(prepared.get(1)).startsWith("SELECT").doesNotContain("_decide");
        assertThat(prepared.get(2)).contains("rate_limit_counters_decide_v1(");
        assertThat(prepared.get(3)).startsWith("SELECT").doesNotContain("_decide");
        assertThat(prepared.get(4)).contains("rate_limit_counters_decide_v1(");
    }

    @Test
    @DisplayName("token-bucket rows: keyed 'tb:' and the hashed key, beside the fixed window's row of the same bucket "
            + "and key; ends_at is the latest theoretical arrival time (full again), each window's in window_ends; "
            + "a refusal writes nothing; reset deletes both rows")
    void tokenBucketRowLayout() throws SQLException {
        Bucket fixed = bucket("tb-row", 5, Duration.ofSeconds(60));
        Bucket tokens = Bucket.of(fixed.name(), List.of(new Limit(2, Duration.ofSeconds(1)),
                new Limit(3, Duration.ofSeconds(60))), dev.ratelimiter.OutagePolicy.FALLBACK,
                Algorithm.TOKEN_BUCKET, 0);
        limiter.consume(fixed, "hashed-key");
        limiter.consume(tokens, "hashed-key", 2);
        assertThat(limiter.consume(tokens, "hashed-key").outcome()).isEqualTo(Verdict.Outcome.DENIED);
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT key, count, ends_at, "
                     + "window_seconds, window_ends[1], token_intervals::text, token_capacities::text, window_ends[2] "
                     + "FROM rate_limit_counters WHERE bucket = ? ORDER BY key")) {
            statement.setString(1, fixed.name());
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).isEqualTo("hashed-key");
                assertThat(row.getLong(2)).as("the fixed window's count, untouched").isEqualTo(1);
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).isEqualTo("tb:hashed-key");
                assertThat(row.getLong(2)).isZero();
                assertThat(row.getObject(3, java.time.OffsetDateTime.class).toInstant())
                        .as("two tokens of 20 s owed in the minute's window").isEqualTo(START.plusSeconds(40));
                assertThat(row.getObject(4)).isNull();
                assertThat(row.getObject(5, java.time.OffsetDateTime.class).toInstant())
                        .as("the second's window: two tokens of 500 ms").isEqualTo(START.plusSeconds(1));
                assertThat(row.getObject(8, java.time.OffsetDateTime.class).toInstant())
                        .isEqualTo(START.plusSeconds(40));
                assertThat(row.getString(6)).isEqualTo("{500000,20000000}");
                assertThat(row.getString(7)).isEqualTo("{2,3}");
                assertThat(row.next()).isFalse();
            }
        }
        limiter.reset(fixed, "hashed-key");
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT count(*) FROM rate_limit_counters WHERE bucket = ?")) {
            statement.setString(1, fixed.name());
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                assertThat(row.getLong(1)).isZero();
            }
        }
    }

    @Test
    @DisplayName("token bucket of one window: exact to the microsecond, as memory decides it (a refill of 333 333 µs "
            + "for 3 per second), through the upsert and the read")
    void tokenBucketMicroseconds() throws Exception {
        PostgresStore store = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 4,
                Optional.of(clock), ConnectionEviction.ABORT);
        Bucket bucket = tokenBucket("tb-micros", 0, new Limit(3, Duration.ofSeconds(1)));
        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 3)))).containsExactly(1, 3, 1_000);
        clock.advance(Duration.ofNanos(333_332_000));
        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 0))))
                .as("1 µs short of a token: none available, 667 ms until full (666 667 µs, rounded up)")
                .containsExactly(0, 3, 667);
        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 1)))).containsExactly(0, 3, 667);
        clock.advance(Duration.ofNanos(1_000));
        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 1))))
                .as("a token to the microsecond: taken").containsExactly(1, 3, 1_000);
        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 11))))
                .as("a cost above the capacity never fits, and overflows nothing").containsExactly(0, 3, 1_000);
    }

    @Test
    @DisplayName("sliding-window rows: keyed 'sw:' beside the fixed window's row of the same bucket and key; one window "
            + "in scalars (count = cur, previous = prev, length_seconds = W, ends_at = the current end + W); a roll keeps "
            + "the phase; several windows in arrays; reset deletes every row of the key")
    void slidingWindowRowLayout() throws SQLException {
        Bucket fixed = bucket("sw-row", 5, Duration.ofSeconds(60));
        Bucket sliding = Bucket.of(fixed.name(), List.of(new Limit(4, Duration.ofSeconds(10))),
                dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        limiter.consume(fixed, "hashed-key");
        limiter.consume(sliding, "hashed-key", 3);
        assertThat(slidingRow(fixed.name(), "sw:hashed-key"))
                .as("count, previous, length_seconds, ends_at - START in ms, window arrays")
                .containsExactly(3L, 0L, 10L, 20_000L, null, null, null, null);

        clock.advance(Duration.ofMillis(13_500)); // the next window, which began at START + 10 s
        assertThat(limiter.consume(sliding, "hashed-key").outcome()).isEqualTo(Verdict.Outcome.ALLOWED);
        assertThat(slidingRow(fixed.name(), "sw:hashed-key"))
                .as("rolled: prev 3, this window's 1, its end START + 20 s (not 13.5 s + 10 s)")
                .containsExactly(1L, 3L, 10L, 30_000L, null, null, null, null);
        assertThat(count(fixed.name(), "hashed-key")).as("the fixed window's count, untouched").isEqualTo(1);

        Bucket several = Bucket.of(fixed.name(), List.of(new Limit(2, Duration.ofSeconds(2)),
                new Limit(5, Duration.ofSeconds(60))), dev.ratelimiter.OutagePolicy.FALLBACK,
                Algorithm.SLIDING_WINDOW, 0);
        limiter.consume(several, "hashed-key", 2);
        assertThat(slidingRow(fixed.name(), "sw:hashed-key"))
                .as("other windows: afresh, in arrays; ends_at the latest end + its length")
                .containsExactly(2L, null, null, 13_500L + 120_000L, "{2,60}", "{2,2}", "{0,0}",
                        "{15500,73500}");

        limiter.reset(fixed, "hashed-key");
        assertThat(rowKeys(fixed.name())).isEmpty();
    }

    @Test
    @DisplayName("sliding windows write only what they count: a refusal of several windows and a check change no row "
            + "version, a one-window refusal writes its row as it was (denied, as a fixed window's), a first item "
            + "above the limit opens no window, and a refused item out of (bucket, key) order creates no row")
    void slidingWindowRefusalWritesNothing() throws Exception {
        PostgresStore store = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 4,
                Optional.of(clock), ConnectionEviction.ABORT);
        Bucket one = slidingWindow("sw-nowrite-a", new Limit(2, Duration.ofSeconds(60)));
        Bucket two = slidingWindow("sw-nowrite-b", new Limit(2, Duration.ofSeconds(10)),
                new Limit(3, Duration.ofSeconds(60)));
        Bucket fixed = bucket("sw-nowrite-c", 5, Duration.ofSeconds(60));

        assertThat(store.consume(List.of(new StoreItem(one, "k", 2)))).containsExactly(1, 2, 0, 60_000);
        assertThat(store.consume(List.of(new StoreItem(two, "k", 2))))
                .containsExactly(1, 2, 0, 10_000, 2, 0, 60_000);
        String oneVersion = rowVersion(one.name(), "sw:k");
        String twoVersion = rowVersion(two.name(), "sw:k");
        clock.advance(Duration.ofSeconds(1));
        assertThat(store.consume(List.of(new StoreItem(one, "k", 1)))).containsExactly(0, 2, 0, 59_000);
        assertThat(rowVersion(one.name(), "sw:k")).as("one window: the plain upsert writes its refusal")
                .isNotEqualTo(oneVersion);
        String refusedVersion = rowVersion(one.name(), "sw:k");
        assertThat(store.consume(List.of(new StoreItem(two, "k", 1))))
                .containsExactly(0, 2, 0, 9_000, 2, 0, 59_000);
        assertThat(store.consume(List.of(new StoreItem(one, "k", 0)))).as("the refusal kept the state")
                .containsExactly(0, 2, 0, 59_000);
        assertThat(rowVersion(one.name(), "sw:k")).as("checked: the same row version").isEqualTo(refusedVersion);
        assertThat(rowVersion(two.name(), "sw:k")).as("several windows refused: the same row version")
                .isEqualTo(twoVersion);

        assertThat(store.consume(List.of(new StoreItem(one, "new", 3)))).as("above the limit")
                .containsExactly(0, 0, 0, 60_000);
        assertThat(store.consume(List.of(new StoreItem(one, "new", 1)))).as("which opened no window: this call does")
                .containsExactly(1, 1, 0, 60_000);
        store.reset(one, "new");
        assertThat(store.consume(List.of(new StoreItem(two, "new", 3)))).as("above the shorter window's limit")
                .containsExactly(0, 0, 0, 10_000, 0, 0, 60_000);
        assertThat(store.consume(List.of(new StoreItem(two, "new", 0)))).containsExactly(1, 0, 0, 10_000, 0, 0,
                60_000);
        assertThat(store.consume(List.of(new StoreItem(fixed, "new", 1), new StoreItem(one, "new", 3))))
                .as("out of order: the lock pass's row for the refused item goes again")
                .containsExactly(1, 1, 60_000, 0, 0, 0, 60_000);
        assertThat(store.consume(List.of(new StoreItem(fixed, "new", 1), new StoreItem(two, "new", 0),
                new StoreItem(one, "new", 0)))).containsExactly(1, 2, 60_000, 1, 0, 0, 10_000, 0, 0, 60_000, 1, 0,
                0, 60_000);
        assertThat(rowKeys(one.name())).containsExactly("sw:k");
        assertThat(rowKeys(two.name())).containsExactly("sw:k");
        assertThat(rowKeys(fixed.name())).containsExactly("new");
    }

    @Test
    @DisplayName("a sliding window is one statement per call: one window counted, one upsert, as a fixed window's; "
            + "a check, several windows or among other buckets, the function; in production with the database's "
            + "instant")
    void slidingWindowOneStatementPerCall() throws Exception {
        for (boolean production : new boolean[] {false, true}) {
            List<String> prepared = new java.util.concurrent.CopyOnWriteArrayList<>();
            PostgresStore store = new PostgresStore(recording(dataSource, prepared), "rate_limit_counters",
                    Duration.ofSeconds(10), 4, production ? Optional.empty() : Optional.of(clock),
                    ConnectionEviction.ABORT);
            String suffix = production ? "-production" : "";
            Bucket one = slidingWindow("statement-sw-one" + suffix, new Limit(10, Duration.ofSeconds(10)));
            Bucket two = slidingWindow("statement-sw-two" + suffix, new Limit(2, Duration.ofSeconds(1)),
                    new Limit(9, Duration.ofHours(1)));
            Bucket fixed = bucket("statement-sw-fixed" + suffix, 5, Duration.ofSeconds(60));

            assertThat(store.consume(List.of(new StoreItem(one, "k", 1)))).startsWith(1, 1, 0);
            assertThat(store.consume(List.of(new StoreItem(one, "k", 0)))).startsWith(1, 1, 0);
            assertThat(store.consume(List.of(new StoreItem(two, "k", 1)))).startsWith(1, 1, 0);
            assertThat(store.consume(List.of(new StoreItem(fixed, "k", 1), new StoreItem(one, "k", 2))))
                    .startsWith(1, 1);

            assertThat(prepared).hasSize(4);
            assertThat(prepared.get(0)).as("one window counted: the plain upsert").startsWith(
                    "INSERT INTO rate_limit_counters").doesNotContain("_decide_v");
            assertThat(prepared.subList(1, 4)).allSatisfy(sql -> assertThat(sql)
                    .contains(production ? "rate_limit_counters_decide_v1(NULL, " : "rate_limit_counters_decide_v1(?"));
        }
    }

    @Test
    @DisplayName("sliding windows decide as the in-memory store, verdict for verdict: 2 000 random calls (costs 0 to "
            + "limit + 1, steps from 0 ms to three windows, window edges included) on one window and on two")
    void slidingWindowDecidesAsMemory() {
        dev.ratelimiter.internal.core.memory.MemoryRateLimiter memory =
                new dev.ratelimiter.internal.core.memory.MemoryRateLimiter(clock, 1_000);
        Bucket one = slidingWindow("sw-memory-one", new Limit(7, Duration.ofSeconds(3)));
        Bucket two = slidingWindow("sw-memory-two", new Limit(3, Duration.ofSeconds(2)),
                new Limit(8, Duration.ofSeconds(5)));
        java.util.Random random = new java.util.Random(20_261_202L);
        for (int step = 0; step < 2_000; step++) {
            Bucket bucket = random.nextBoolean() ? one : two;
            long windowMillis = bucket.limits().get(0).window().toMillis();
            long advance = switch (random.nextInt(6)) {
                case 0 -> 0;
                case 1 -> random.nextInt(1_000);
                case 2 -> windowMillis / 4 * (1 + random.nextInt(4)); // quarters of a window: exact weights
                case 3 -> windowMillis;
                case 4 -> 1;
                default -> random.nextInt((int) (3 * windowMillis));
            };
            clock.advance(Duration.ofMillis(advance));
            String key = "k" + random.nextInt(3);
            long cost = random.nextInt((int) bucket.limit() + 2);
            Verdict expected = memory.consume(bucket, key, cost);
            Verdict actual = limiter.consume(bucket, key, cost);
            assertThat(actual).as("step %d: %s, key %s, cost %d, at %s", step, bucket.name(), key, cost,
                    clock.instant()).isEqualTo(expected);
        }
    }

    @Test
    @DisplayName("sliding windows: 16 threads deciding two sliding buckets (one window; two windows, a first call "
            + "inserting the row) in opposite orders, and a fixed window: no deadlock, no failure, each admits "
            + "exactly its limit")
    void slidingWindowOppositeOrders() throws Exception {
        Bucket first = slidingWindow("sw-order-first", new Limit(300, Duration.ofHours(1)));
        Bucket second = slidingWindow("sw-order-second", new Limit(300, Duration.ofMinutes(1)),
                new Limit(400, Duration.ofHours(1)));
        Bucket fixed = bucket("sw-order-fixed", 1_000, Duration.ofSeconds(60));
        PostgresStore store = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 16,
                Optional.empty(), ConnectionEviction.ABORT);
        int threads = 16;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<StoreItem> items = t % 2 == 0
                        ? List.of(new StoreItem(first, "k", 1), new StoreItem(second, "k", 1),
                                new StoreItem(fixed, "k", 1))
                        : List.of(new StoreItem(fixed, "k", 1), new StoreItem(second, "k", 1),
                                new StoreItem(first, "k", 1));
                int lastFlag = t % 2 == 0 ? 11 : 10; // the fixed window's flag, or the first bucket's
                results.add(pool.submit(() -> {
                    start.await();
                    int allowedAll = 0;
                    for (int i = 0; i < 25; i++) {
                        long[] answer = store.consume(items);
                        allowedAll += answer.length == 14 && answer[lastFlag] == 1 ? 1 : 0;
                    }
                    return allowedAll;
                }));
            }
            int admitted = 0;
            for (java.util.concurrent.Future<Integer> result : results) {
                admitted += result.get(2, java.util.concurrent.TimeUnit.MINUTES);
            }
            assertThat(admitted).as("16 x 25 calls, the sliding buckets admit 300").isEqualTo(300);
            assertThat(store.consume(List.of(new StoreItem(first, "k", 0)))).startsWith(0, 300, 0);
            assertThat(store.consume(List.of(new StoreItem(second, "k", 0)))).startsWith(0, 300, 0);
            assertThat(rowKeys(first.name())).containsExactly("sw:k");
            assertThat(rowKeys(second.name())).containsExactly("sw:k");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("sliding window of two windows: 64 concurrent first calls on one key admit exactly its limit (the "
            + "first inserts the row; another that met its insert reads the row again, locked)")
    void slidingWindowSeveralWindowsConcurrentFirstCalls() throws Exception {
        Bucket bucket = slidingWindow("sw-race-two", new Limit(20, Duration.ofHours(1)),
                new Limit(30, Duration.ofDays(1)));
        int threads = 64;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<Verdict>> results = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return limiter.consume(bucket, "first");
                }));
            }
            int admitted = 0;
            for (java.util.concurrent.Future<Verdict> result : results) {
                Verdict verdict = result.get(2, java.util.concurrent.TimeUnit.MINUTES);
                assertThat(verdict.outcome()).isNotEqualTo(Verdict.Outcome.UNAVAILABLE);
                admitted += verdict.isAllowed() ? 1 : 0;
            }
            assertThat(admitted).isEqualTo(20);
            assertThat(limiter.consume(bucket, "first", 0).windows()).extracting(Verdict.Window::remaining)
                    .containsExactly(0L, 10L);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A sliding row's count, previous, length_seconds, ends_at (ms after START) and its arrays (window_seconds,
     * window_counts, window_previous as text, window_ends as ms after START), or an empty list without it.
     */
    private static List<Object> slidingRow(String bucket, String key) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT count, previous, length_seconds, "
                     + "(extract(epoch FROM ends_at - ?::timestamptz) * 1000)::bigint, window_seconds::text, "
                     + "window_counts::text, window_previous::text, (SELECT array_agg((extract(epoch FROM e - "
                     + "?::timestamptz) * 1000)::bigint) FROM unnest(window_ends) AS e)::text "
                     + "FROM rate_limit_counters WHERE bucket = ? AND key = ?")) {
            java.time.OffsetDateTime start = java.time.OffsetDateTime.ofInstant(START, java.time.ZoneOffset.UTC);
            statement.setObject(1, start);
            statement.setObject(2, start);
            statement.setString(3, bucket);
            statement.setString(4, key);
            try (ResultSet row = statement.executeQuery()) {
                List<Object> values = new java.util.ArrayList<>();
                if (row.next()) {
                    for (int i = 1; i <= 8; i++) {
                        Object value = row.getObject(i);
                        values.add(value instanceof Number number ? (Object) number.longValue() : value);
                    }
                }
                return values;
            }
        }
    }

    /** The row's version (its xmin and ctid), which any write changes. */
    private static String rowVersion(String bucket, String key) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT xmin::text || ctid::text "
                     + "FROM rate_limit_counters WHERE bucket = ? AND key = ?")) {
            statement.setString(1, bucket);
            statement.setString(2, key);
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).isTrue();
                return row.getString(1);
            }
        }
    }

    private static List<String> rowKeys(String bucket) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT key FROM rate_limit_counters WHERE bucket = ? ORDER BY key")) {
            statement.setString(1, bucket);
            List<String> keys = new java.util.ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    keys.add(rows.getString(1));
                }
            }
            return keys;
        }
    }

    private static long count(String bucket, String key) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT count FROM rate_limit_counters WHERE bucket = ? AND key = ?")) {
            statement.setString(1, bucket);
            statement.setString(2, key);
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).isTrue();
                return row.getLong(1);
            }
        }
    }

    @Test
    @DisplayName("in production no statement binds an instant: the database's is written into the text, since a NULL "
            + "timestamp of no declared type has the driver describe the statement again at every call")
    void productionStatementsBindNoInstant() throws Exception {
        List<String> prepared = new java.util.concurrent.CopyOnWriteArrayList<>();
        PostgresStore store = new PostgresStore(recording(dataSource, prepared), "rate_limit_counters",
                Duration.ofSeconds(10), 4, Optional.empty(), ConnectionEviction.ABORT);
        Bucket one = bucket("production-a", 5, Duration.ofSeconds(60));
        Bucket two = Bucket.of("production-b", List.of(new Limit(2, Duration.ofSeconds(1)),
                new Limit(9, Duration.ofHours(1))), dev.ratelimiter.OutagePolicy.FALLBACK);

        assertThat(store.consume(List.of(new StoreItem(one, "k", 1)))).startsWith(1, 1);
        assertThat(store.consume(List.of(new StoreItem(two, "k", 1)))).startsWith(1, 1);
        assertThat(store.consume(List.of(new StoreItem(one, "k", 0)))).startsWith(1, 1);
        assertThat(store.consume(List.of(new StoreItem(one, "k", 1), new StoreItem(two, "k", 1))))
                .startsWith(1, 2);
        Bucket tokens = tokenBucket("production-tb", 0, new Limit(5, Duration.ofSeconds(60)));
        Bucket twoTokens = tokenBucket("production-tb-two", 0, new Limit(2, Duration.ofSeconds(1)),
                new Limit(9, Duration.ofHours(1)));
        assertThat(store.consume(List.of(new StoreItem(tokens, "k", 1)))).startsWith(1, 1);
        assertThat(store.consume(List.of(new StoreItem(tokens, "k", 0)))).startsWith(1, 1);
        assertThat(store.consume(List.of(new StoreItem(twoTokens, "k", 1)))).startsWith(1, 1);

        assertThat(prepared).hasSize(7).allSatisfy(sql -> assertThat(sql).doesNotContain("?::timestamptz"));
        assertThat(prepared.subList(0, 3)).allSatisfy(sql -> assertThat(sql).contains("statement_timestamp()"));
        assertThat(prepared.get(3)).contains("rate_limit_counters_decide_v1(NULL, ");
        assertThat(prepared.subList(4, 6)).allSatisfy(sql -> assertThat(sql).contains("statement_timestamp()"));
        assertThat(prepared.get(6)).contains("rate_limit_counters_decide_v1(NULL, ");
    }

    @Test
    @DisplayName("one row twice in a call (a store's caller may repeat an item): locked once, counted for each item "
            + "in order, the second seeing the first's count")
    void oneRowTwiceInOneCall() throws Exception {
        Bucket bucket = bucket("twice", 3, Duration.ofSeconds(60));
        PostgresStore store = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 4,
                Optional.of(clock), ConnectionEviction.ABORT);

        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 2), new StoreItem(bucket, "k", 1))))
                .containsExactly(1, 2, 60_000, 1, 3, 60_000);
        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 0), new StoreItem(bucket, "k", 1))))
                .as("a check sees the count, then the full bucket refuses")
                .containsExactly(0, 3, 60_000);
    }

    @Test
    @DisplayName("refunds of every row layout in one call are one statement: a fixed window's row refunded twice gets "
            + "both, sliding windows lower cur only, a token bucket of two windows is full again, no window's end "
            + "moves, and a key never counted gets no row")
    void refundsOfEveryLayoutInOneStatement() throws Exception {
        List<String> prepared = new java.util.concurrent.CopyOnWriteArrayList<>();
        PostgresStore store = new PostgresStore(recording(dataSource, prepared), "rate_limit_counters",
                Duration.ofSeconds(10), 4, Optional.of(clock), ConnectionEviction.ABORT);
        Bucket fixed = bucket("refund-layout-fixed", 3, Duration.ofSeconds(60));
        Bucket sliding = slidingWindow("refund-layout-sliding", new Limit(2, Duration.ofSeconds(60)));
        Bucket slidingTwo = slidingWindow("refund-layout-sliding-two", new Limit(3, Duration.ofSeconds(10)),
                new Limit(5, Duration.ofSeconds(60)));
        Bucket tokensTwo = tokenBucket("refund-layout-tb-two", 0, new Limit(2, Duration.ofSeconds(1)),
                new Limit(9, Duration.ofHours(1)));
        store.consume(List.of(new StoreItem(fixed, "k", 2)));
        store.consume(List.of(new StoreItem(sliding, "k", 2)));
        store.consume(List.of(new StoreItem(slidingTwo, "k", 2)));
        store.consume(List.of(new StoreItem(tokensTwo, "k", 1)));
        clock.advance(Duration.ofSeconds(1));
        prepared.clear();

        store.refund(List.of(new StoreRefund(fixed, "k", 1, new long[] {59_000}),
                new StoreRefund(sliding, "k", 1, new long[] {59_000}),
                new StoreRefund(slidingTwo, "k", 1, new long[] {9_000, 59_000}),
                new StoreRefund(tokensTwo, "k", 1, new long[] {0, 0}),
                new StoreRefund(fixed, "k", 1, new long[] {59_000}),
                new StoreRefund(fixed, "never", 1, new long[] {59_000})));

        assertThat(prepared).singleElement().asString().startsWith("WITH ").contains("UPDATE rate_limit_counters");
        assertThat(store.consume(List.of(new StoreItem(fixed, "k", 0)))).containsExactly(1, 0, 59_000);
        assertThat(store.consume(List.of(new StoreItem(sliding, "k", 0)))).containsExactly(1, 1, 0, 59_000);
        assertThat(store.consume(List.of(new StoreItem(slidingTwo, "k", 0))))
                .containsExactly(1, 1, 0, 9_000, 1, 0, 59_000);
        assertThat(store.consume(List.of(new StoreItem(tokensTwo, "k", 0)))).containsExactly(1, 0, 0, 0, 0);
        assertThat(PostgresChain.storedCount(schema, fixed.name(), "never")).as("no row for a key never counted")
                .isEqualTo(-1);
    }

    @Test
    @DisplayName("16 threads deciding the same two buckets in opposite orders: no deadlock, no failure, and each "
            + "bucket admits exactly its limit")
    void oppositeOrdersNeverDeadlock() throws Exception {
        Bucket first = bucket("order-first", 400, Duration.ofSeconds(60));
        Bucket second = bucket("order-second", 400, Duration.ofSeconds(60));
        PostgresStore store = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 16,
                Optional.empty(), ConnectionEviction.ABORT);
        int threads = 16;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<StoreItem> items = t % 2 == 0
                        ? List.of(new StoreItem(first, "k", 1), new StoreItem(second, "k", 1))
                        : List.of(new StoreItem(second, "k", 1), new StoreItem(first, "k", 1));
                results.add(pool.submit(() -> {
                    start.await();
                    int allowedBoth = 0;
                    for (int i = 0; i < 30; i++) {
                        long[] answer = store.consume(items);
                        allowedBoth += answer.length == 6 && answer[3] == 1 ? 1 : 0;
                    }
                    return allowedBoth;
                }));
            }
            int admitted = 0;
            for (java.util.concurrent.Future<Integer> result : results) {
                admitted += result.get(2, java.util.concurrent.TimeUnit.MINUTES);
            }
            assertThat(admitted).as("16 x 30 calls, each bucket admits 400").isEqualTo(400);
            assertThat(store.consume(List.of(new StoreItem(first, "k", 0)))[1]).isEqualTo(400);
            assertThat(store.consume(List.of(new StoreItem(second, "k", 0)))[1]).isEqualTo(400);
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code target}, recording the text of every statement prepared on its connections. */
    static javax.sql.DataSource recording(javax.sql.DataSource target, List<String> prepared) {
        return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                PostgresStoreTest.class.getClassLoader(), new Class<?>[] {javax.sql.DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection connection = (Connection) result;
                    return java.lang.reflect.Proxy.newProxyInstance(PostgresStoreTest.class.getClassLoader(),
                            new Class<?>[] {Connection.class}, (inner, call, values) -> {
                                if (call.getName().equals("prepareStatement")) {
                                    prepared.add((String) values[0]);
                                }
                                return invoke(connection, call, values);
                            });
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
