package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.StorePermit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sweep: which rows it deletes (bound instants), a million ended rows in batches of at most 10 000, and the
 * advisory lock that keeps two sweepers from working at once.
 *
 * <p>The advisory lock is keyed by the table's OID, so this class's schema has a lock of its own although
 * advisory locks are database-wide and other classes sweep tables of the same name.
 */
class PostgresSweepTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final int LOCK_SPACE = 0x524C; // "RL", 21068

    private static String schema;
    private static String table;
    private static HikariDataSource pool;

    private Connection other;

    @BeforeAll
    static void migrate() {
        schema = PostgresTarget.newSchema("sweep");
        table = schema + "." + PostgresChain.TABLE;
        pool = PostgresTarget.pool(schema, 4);
    }

    @AfterAll
    static void drop() {
        pool.close();
        PostgresTarget.dropSchema(schema);
    }

    @BeforeEach
    void empty() throws SQLException {
        other = PostgresTarget.dataSource(schema).getConnection();
        execute("TRUNCATE " + table);
    }

    @AfterEach
    void close() throws SQLException {
        execute("DROP TRIGGER IF EXISTS record_sweep_batch ON " + table);
        other.close(); // ends its session: releases any advisory lock it holds
    }

    @Test
    @DisplayName("with a bound instant, the sweep deletes exactly the ended rows: a window ending now or before is deleted, one ending a millisecond later is not, and it returns how many it deleted")
    void deletesExactlyTheEndedRows() throws SQLException {
        ManualClock clock = new ManualClock(T0);
        PostgresStore limiter = limiter(clock);
        Bucket bucket = Bucket.of("sweep-edge", 5, Duration.ofSeconds(60));
        clock.set(T0.minusSeconds(1));
        consume(limiter, bucket, "ended-before");
        clock.set(T0);
        consume(limiter, bucket, "ends-now");
        clock.set(T0.plusMillis(1));
        consume(limiter, bucket, "ends-later");
        assertThat(keys()).containsExactlyInAnyOrder("ended-before", "ends-now", "ends-later");

        clock.set(T0.plusSeconds(60)); // "ends-now"'s window ends at this very instant
        assertThat(limiter.sweep()).isEqualTo(2);
        assertThat(keys()).containsExactly("ends-later");
        assertThat(limiter.sweep()).as("a second sweep at the same instant").isZero();

        clock.advance(Duration.ofMillis(1));
        assertThat(limiter.sweep()).isEqualTo(1);
        assertThat(keys()).isEmpty();
    }

    @Test
    @DisplayName("a token bucket's row is deleted once every window is full again (its latest theoretical arrival "
            + "time <= now), not a microsecond before")
    void deletesFullTokenBuckets() throws SQLException {
        ManualClock clock = new ManualClock(T0);
        PostgresStore limiter = limiter(clock);
        Bucket bucket = Bucket.of("sweep-tokens", List.of(new Limit(2, Duration.ofSeconds(2)),
                new Limit(10, Duration.ofSeconds(60))), dev.ratelimiter.OutagePolicy.FALLBACK,
                Algorithm.TOKEN_BUCKET, 0);
        consume(limiter, bucket, "k"); // owes one token of 1 s and one of 6 s: full again at T0 + 6 s
        assertThat(keys()).containsExactly("tb:k");

        clock.set(T0.plusSeconds(6).minusNanos(1_000));
        assertThat(limiter.sweep()).isZero();
        clock.set(T0.plusSeconds(6));
        assertThat(limiter.sweep()).isEqualTo(1);
        assertThat(keys()).isEmpty();
    }

    @Test
    @DisplayName("a sliding window's row is deleted once its previous count weighs nothing (the current end + one "
            + "length <= now), not a millisecond before, while it still weighs; a roll moves that on by one length; "
            + "several windows: the latest")
    void deletesSlidingRowsOnceNothingWeighs() throws SQLException {
        ManualClock clock = new ManualClock(T0);
        PostgresStore limiter = limiter(clock);
        Bucket one = Bucket.of("sweep-sliding", List.of(new Limit(5, Duration.ofSeconds(2))),
                dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        Bucket two = Bucket.of("sweep-sliding-two", List.of(new Limit(5, Duration.ofSeconds(2)),
                new Limit(10, Duration.ofSeconds(5))), dev.ratelimiter.OutagePolicy.FALLBACK,
                Algorithm.SLIDING_WINDOW, 0);
        consume(limiter, one, "k"); // its window ends at T0 + 2 s, and weighs until T0 + 4 s
        consume(limiter, two, "k"); // the 5 s window ends at T0 + 5 s, and weighs until T0 + 10 s
        assertThat(keys()).containsExactlyInAnyOrder("sw:k", "sw:k");

        clock.set(T0.plusSeconds(4).minusMillis(1));
        assertThat(limiter.sweep()).isZero();
        assertThat(check(limiter, one)).as("the previous count still weighs, for its last millisecond")
                .containsExactly(1, 0, 1, 1);
        clock.set(T0.plusSeconds(4));
        assertThat(limiter.sweep()).isEqualTo(1);
        assertThat(check(limiter, one)).as("nothing left to weigh").containsExactly(1, 0, 0, 2_000);

        consume(limiter, one, "k"); // T0 + 4 s: a new first window, to T0 + 6 s
        clock.set(T0.plusSeconds(7));
        consume(limiter, one, "k"); // rolled: the window of T0 + 6 s to 8 s, weighing until T0 + 10 s
        clock.set(T0.plusSeconds(10).minusMillis(1));
        assertThat(limiter.sweep()).isZero();
        assertThat(check(limiter, one)).containsExactly(1, 0, 1, 1);
        assertThat(check(limiter, two)).as("the 5 s window too").containsExactly(1, 0, 0, 2_000, 0, 1, 1);
        clock.set(T0.plusSeconds(10));
        assertThat(limiter.sweep()).isEqualTo(2);
        assertThat(keys()).isEmpty();
    }

    @Test
    @DisplayName("a concurrency bucket's permits row is deleted once every lease has ended (its latest deadline <= now), "
            + "not while one is live, a renewal moving that on; a row whose permits were all given back goes at the "
            + "next sweep")
    void deletesPermitRowsOnceEveryLeaseEnded() throws Exception {
        ManualClock clock = new ManualClock(T0);
        PostgresStore limiter = limiter(clock);
        Bucket bucket = Bucket.concurrency("sweep-permits", 3, Duration.ofSeconds(2),
                dev.ratelimiter.OutagePolicy.FALLBACK);
        StorePermit live = new StorePermit(bucket, "k", 2);
        assertThat(limiter.take(new StorePermit(bucket, "k", 1))).startsWith(1); // its lease ends at T0 + 2 s
        clock.set(T0.plusSeconds(1));
        assertThat(limiter.take(live)).startsWith(1); // its lease ends at T0 + 3 s
        assertThat(keys()).containsExactly("cp:k");

        clock.set(T0.plusMillis(2_500));
        assertThat(limiter.sweep()).as("one lease ended, one live").isZero();
        assertThat(limiter.renew(List.of(live))).containsExactly(1); // now it ends at T0 + 4.5 s
        clock.set(T0.plusMillis(4_500).minusNanos(1_000));
        assertThat(limiter.sweep()).isZero();
        clock.set(T0.plusMillis(4_500));
        assertThat(limiter.sweep()).isEqualTo(1);
        assertThat(keys()).isEmpty();

        StorePermit given = new StorePermit(bucket, "j", 3);
        assertThat(limiter.take(given)).startsWith(1);
        limiter.giveBack(List.of(given));
        assertThat(limiter.sweep()).as("no permit left: the row goes, its lease not yet ended").isEqualTo(1);
        assertThat(keys()).isEmpty();
    }

    @Test
    @DisplayName("a million ended rows: one sweep leaves the table empty, returns 1 000 000, and no DELETE removed more than 10 000 rows")
    void millionEndedRows() throws SQLException {
        execute("CREATE TABLE IF NOT EXISTS " + schema + ".sweep_batches (deleted bigint NOT NULL)");
        execute("TRUNCATE " + schema + ".sweep_batches");
        execute("CREATE OR REPLACE FUNCTION " + schema + ".record_sweep_batch() RETURNS trigger LANGUAGE plpgsql AS "
                + "$$ BEGIN INSERT INTO " + schema + ".sweep_batches SELECT count(*) FROM old_rows; RETURN NULL; END $$");
        execute("CREATE TRIGGER record_sweep_batch AFTER DELETE ON " + table + " REFERENCING OLD TABLE AS old_rows "
                + "FOR EACH STATEMENT EXECUTE FUNCTION " + schema + ".record_sweep_batch()");
        execute("INSERT INTO " + table + " (bucket, key, ends_at, count) SELECT 'bulk', 'k' || g, "
                + "now() - interval '1 hour', 1 FROM generate_series(1, 1000000) AS g");
        PostgresStore limiter = limiter(null); // the database's time

        long start = System.nanoTime();
        long deleted = limiter.sweep();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(deleted).isEqualTo(1_000_000);
        assertThat(count()).isZero();
        List<Long> batches = new ArrayList<>();
        try (Statement statement = other.createStatement();
             ResultSet rows = statement.executeQuery("SELECT deleted FROM " + schema + ".sweep_batches")) {
            while (rows.next()) {
                batches.add(rows.getLong(1));
            }
        }
        assertThat(batches).as("rows deleted by each DELETE").allSatisfy(batch ->
                assertThat(batch).isBetween(0L, 10_000L));
        assertThat(batches.stream().mapToLong(Long::longValue).sum()).isEqualTo(1_000_000);
        assertThat(batches).hasSizeGreaterThanOrEqualTo(100);
        assertThat(took).as("sweep of a million rows").isLessThan(Duration.ofSeconds(60));
    }

    @Test
    @DisplayName("while another session holds the sweep's advisory lock, sweep returns 0 and deletes nothing; released, the sweep works and releases the lock again")
    void advisoryLockKeepsSecondSweeperOut() throws SQLException {
        execute("INSERT INTO " + table + " (bucket, key, ends_at, count) SELECT 'locked', 'k' || g, "
                + "now() - interval '1 hour', 1 FROM generate_series(1, 100) AS g");
        PostgresStore limiter = limiter(null);
        assertThat(advisoryLock("pg_try_advisory_lock")).as("lock taken by the other session").isTrue();

        assertThat(limiter.sweep()).isZero();
        assertThat(count()).as("rows left").isEqualTo(100);

        assertThat(advisoryLock("pg_advisory_unlock")).isTrue();
        assertThat(limiter.sweep()).isEqualTo(100);
        assertThat(count()).isZero();
        assertThat(advisoryLock("pg_try_advisory_lock")).as("the sweeper released the lock").isTrue();
        assertThat(advisoryLock("pg_advisory_unlock")).isTrue();
    }

    @Test
    @DisplayName("an ended row locked by a decision in progress (several buckets lock their rows for the whole call) "
            + "is skipped, never waited for: the sweep deletes the others at once and the locked row stays")
    void lockedRowIsSkipped() throws SQLException {
        execute("INSERT INTO " + table + " (bucket, key, ends_at, count) SELECT 'held', 'k' || g, "
                + "now() - interval '1 hour', 1 FROM generate_series(1, 100) AS g");
        PostgresStore limiter = limiter(null);
        try (Connection decision = PostgresTarget.dataSource(schema).getConnection();
             Statement statement = decision.createStatement()) {
            decision.setAutoCommit(false);
            statement.execute("SELECT 1 FROM " + table + " WHERE bucket = 'held' AND key = 'k1' FOR UPDATE");

            long start = System.nanoTime();
            assertThat(limiter.sweep()).isEqualTo(99);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a sweep that waited would take the 30 s of "
                    + "its statement timeout").isLessThan(Duration.ofSeconds(20));
            assertThat(count()).as("the locked row").isEqualTo(1);
            decision.rollback();
        }
        assertThat(limiter.sweep()).as("released, it goes at the next sweep").isEqualTo(1);
    }

    private PostgresStore limiter(InstantSource boundClock) {
        return new PostgresStore(pool, table, Duration.ofSeconds(10), 4, Optional.ofNullable(boundClock),
                ConnectionEviction.ABORT);
    }

    /** Counts one attempt through the library's limiter around the store. */
    private static void consume(PostgresStore store, Bucket bucket, String key) {
        new StoreLimiter(store, new BackendMonitor("postgres", InstantSource.system(),
                RateLimiterMetrics.NONE), RateLimiterMetrics.NONE).consume(bucket, key);
    }

    /** A check (cost 0) of key {@code k}: the store's answer. */
    private static long[] check(PostgresStore store, Bucket bucket) {
        try {
            return store.consume(List.of(new dev.ratelimiter.spi.StoreItem(bucket, "k", 0)));
        } catch (dev.ratelimiter.spi.StoreException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Takes or releases, on the other session, the lock a sweep of {@link #table} takes. */
    private boolean advisoryLock(String function) throws SQLException {
        try (PreparedStatement statement = other.prepareStatement(
                "SELECT " + function + "(?, hashtext(?::regclass::oid::text))")) {
            statement.setInt(1, LOCK_SPACE);
            statement.setString(2, table);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getBoolean(1);
            }
        }
    }

    private List<String> keys() throws SQLException {
        List<String> keys = new ArrayList<>();
        try (Statement statement = other.createStatement();
             ResultSet rows = statement.executeQuery("SELECT key FROM " + table)) {
            while (rows.next()) {
                keys.add(rows.getString(1));
            }
        }
        return keys;
    }

    private long count() throws SQLException {
        try (Statement statement = other.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM " + table)) {
            row.next();
            return row.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Statement statement = other.createStatement()) {
            statement.execute(sql);
        }
    }

    @Test
    @DisplayName("a sweep of the same table name in another schema does not wait for this one's lock")
    void lockIsPerTable() throws SQLException {
        String otherSchema = PostgresTarget.newSchema("sweep_other");
        try (HikariDataSource otherPool = PostgresTarget.pool(otherSchema, 2)) {
            PostgresStore elsewhere = new PostgresStore(otherPool, "rate_limit_counters",
                    Duration.ofSeconds(10), 2, Optional.of(InstantSource.fixed(T0)), ConnectionEviction.ABORT);
            consume(elsewhere, Bucket.of("other", 1, Duration.ofSeconds(1)), "k");
            assertThat(advisoryLock("pg_try_advisory_lock")).isTrue(); // this class's table is being swept
            PostgresStore later = new PostgresStore(otherPool, "rate_limit_counters",
                    Duration.ofSeconds(10), 2, Optional.of(InstantSource.fixed(T0.plusSeconds(1))), ConnectionEviction.ABORT);
            assertThat(later.sweep()).as("the other schema's sweep works").isEqualTo(1);
        } finally {
            advisoryLock("pg_advisory_unlock");
            PostgresTarget.dropSchema(otherSchema);
        }
    }

    @Test
    @DisplayName("a sweep is not cut short by the pool's 100 ms statement timeout, which is meant for decisions")
    void sweepOutlivesDecisionTimeout() throws SQLException {
        String slowSchema = PostgresTarget.newSchema("sweep_slow");
        javax.sql.DataSource slowPool = HikariPools.create(new PostgresSettings(
                Optional.empty(), Optional.of(PostgresTarget.url() + (PostgresTarget.url().contains("?") ? "&" : "?")
                        + "currentSchema=" + slowSchema), Optional.of(PostgresTarget.user()),
                Optional.of(PostgresTarget.password()).filter(p -> !p.isEmpty()), "rate_limit_counters",
                Duration.ofMillis(100), Duration.ofMinutes(5), 2, false));
        // Set up on a plain connection: the library's pool waits at most 250 ms for one, which a loaded machine
        // can take just to connect, and the set-up is not what is tested.
        try (Connection admin = PostgresTarget.dataSource(slowSchema).getConnection();
             Statement statement = admin.createStatement()) {
            // Every DELETE statement on the table takes 150 ms, longer than a decision may.
            statement.execute("CREATE FUNCTION " + slowSchema + ".slow() RETURNS trigger AS "
                    + "$$ BEGIN PERFORM pg_sleep(0.15); RETURN NULL; END $$ LANGUAGE plpgsql");
            statement.execute("CREATE TRIGGER slow AFTER DELETE ON " + slowSchema + ".rate_limit_counters "
                    + "FOR EACH STATEMENT EXECUTE FUNCTION " + slowSchema + ".slow()");
            statement.execute("INSERT INTO " + slowSchema + ".rate_limit_counters (bucket, key, ends_at, count) "
                    + "SELECT 'slow', 'k' || i, now() - interval '1 minute', 1 FROM generate_series(1, 3) i");
        }
        try {
            PostgresStore limiter = new PostgresStore(slowPool, "rate_limit_counters",
                    Duration.ofMillis(100), 2, Optional.empty(), HikariPools.eviction(slowPool));
            assertThat(limiter.sweep()).isEqualTo(3);
        } finally {
            HikariPools.close(slowPool);
            PostgresTarget.dropSchema(slowSchema);
        }
    }
}
