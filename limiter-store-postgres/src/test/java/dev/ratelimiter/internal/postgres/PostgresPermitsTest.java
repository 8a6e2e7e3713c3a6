package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A concurrency bucket's permits in PostgreSQL, beyond the contract ({@code PostgresStoreTest}'s "concurrency
 * limits"): the row they are kept in, the leases a take reports ended, give-backs and renewals of several permits as
 * one statement, exactness on the database's own time through two pools, and no deadlock between statements that lock
 * several rows. In a schema of this class's own.
 */
class PostgresPermitsTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final String TABLE = "rate_limit_counters";

    private static String schema;
    private static HikariDataSource pool;
    private static HikariDataSource otherPool;

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void migrate() {
        schema = PostgresTarget.newSchema("permits");
        pool = PostgresTarget.pool(schema, 8);
        otherPool = PostgresTarget.pool(schema, 8);
    }

    @AfterAll
    static void drop() {
        pool.close();
        otherPool.close();
        PostgresTarget.dropSchema(schema);
    }

    @Test
    @DisplayName("a key's permits are one row keyed 'cp:' and the hashed key as given, never more: the ids and their "
            + "deadlines in window_counts and window_ends, count the permits held, ends_at the latest deadline, denied "
            + "the last take's refusal; no column of another algorithm is set")
    void rowLayout() throws Exception {
        ManualClock clock = new ManualClock(T0);
        PostgresStore store = store(pool, clock);
        Bucket bucket = bucket("layout", 2, Duration.ofSeconds(30));
        assertThat(store.take(new StorePermit(bucket, "hashed-key", 11))).containsExactly(1, 1, 0);
        clock.advance(Duration.ofSeconds(1));
        assertThat(store.take(new StorePermit(bucket, "hashed-key", -22))).containsExactly(1, 2, 0);
        assertThat(store.take(new StorePermit(bucket, "hashed-key", 33))).containsExactly(0, 2, 0);

        try (Connection connection = pool.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT key, count, ends_at, denied, "
                     + "window_counts::text, window_ends, window_seconds, token_intervals, token_capacities, "
                     + "length_seconds, window_previous FROM " + TABLE + " WHERE bucket = ?")) {
            statement.setString(1, bucket.name());
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).isEqualTo("cp:hashed-key");
                assertThat(row.getLong(2)).isEqualTo(2);
                assertThat(row.getObject(3, OffsetDateTime.class).toInstant()).isEqualTo(T0.plusSeconds(31));
                assertThat(row.getBoolean(4)).as("the last take was refused").isTrue();
                assertThat(row.getString(5)).as("the ids, numbers only").isEqualTo("{11,-22}");
                assertThat(instants(row.getArray(6))).containsExactly(T0.plusSeconds(30), T0.plusSeconds(31));
                for (int column = 7; column <= 11; column++) {
                    assertThat(row.getObject(column)).as("column %d", column).isNull();
                }
                assertThat(row.next()).as("one row per key").isFalse();
            }
        }
    }

    @Test
    @DisplayName("leases that ended are reported once, by the take that removes them: a check counts only the live "
            + "ones and removes nothing")
    void endedLeasesReportedOnce() throws Exception {
        ManualClock clock = new ManualClock(T0);
        PostgresStore store = store(pool, clock);
        Bucket bucket = bucket("ended", 3, Duration.ofSeconds(1));
        store.take(new StorePermit(bucket, "k", 1));
        store.take(new StorePermit(bucket, "k", 2));
        clock.advance(Duration.ofMillis(500));
        store.take(new StorePermit(bucket, "k", 3));
        clock.advance(Duration.ofMillis(500)); // 1 and 2 end at this very instant

        assertThat(store.take(new StorePermit(bucket, "k", StorePermit.CHECK))).containsExactly(1, 1, 0);
        assertThat(store.take(new StorePermit(bucket, "k", 4))).as("allowed, 2 held, 2 ended")
                .containsExactly(1, 2, 2);
        assertThat(store.take(new StorePermit(bucket, "k", 5))).containsExactly(1, 3, 0);
        assertThat(store.take(new StorePermit(bucket, "k", 6))).containsExactly(0, 3, 0);
    }

    @Test
    @DisplayName("give-backs and renewals of several permits of several keys are one statement each, on the "
            + "database's time: a renewal answers each permit in order, a permit given back twice or never taken "
            + "changes nothing")
    void severalPermitsOneStatement() throws Exception {
        List<String> prepared = new CopyOnWriteArrayList<>();
        PostgresStore store = store(PostgresStoreTest.recording(pool, prepared), null);
        Bucket one = bucket("several-a", 2, Duration.ofSeconds(60));
        Bucket two = bucket("several-b", 1, Duration.ofSeconds(30));
        StorePermit a1 = new StorePermit(one, "k", 1);
        StorePermit a2 = new StorePermit(one, "k", 2);
        StorePermit b1 = new StorePermit(two, "k", 1);
        StorePermit b9 = new StorePermit(two, "j", 9);
        for (StorePermit permit : List.of(a1, a2, b1, b9)) {
            assertThat(store.take(permit)).startsWith(1);
        }
        prepared.clear();

        assertThat(store.renew(List.of(b9, new StorePermit(one, "k", 7), a2, new StorePermit(two, "none", 1), a1)))
                .containsExactly(1, 0, 1, 0, 1);
        store.giveBack(List.of(a2, b1, a2, new StorePermit(one, "k", 8), new StorePermit(two, "none", 3)));
        assertThat(prepared).hasSize(2).allSatisfy(sql -> assertThat(sql).contains("statement_timestamp()")
                .doesNotContain("?::timestamptz"));

        assertThat(store.take(new StorePermit(one, "k", StorePermit.CHECK))).containsExactly(1, 1, 0);
        assertThat(store.take(new StorePermit(two, "k", StorePermit.CHECK))).containsExactly(1, 0, 0);
        assertThat(store.take(new StorePermit(two, "j", StorePermit.CHECK))).containsExactly(0, 1, 0);
        assertThat(store.renew(List.of(a2, b1, a1))).as("given back: no longer held").containsExactly(0, 0, 1);
    }

    @Test
    @DisplayName("on the database's time, through two pools, 32 first takes of a key at once admit exactly its limit; "
            + "then takes and give-backs racing on it never hold one permit more, and leave every permit free")
    void exactThroughTwoPools() throws Exception {
        Bucket bucket = bucket("exact", 5, Duration.ofSeconds(60));
        PostgresStore[] replicas = {store(pool, null), store(otherPool, null)};
        assertThat(race(32, t -> {
            long[] answer = replicas[t % 2].take(permit(bucket, "first"));
            assertThat(answer[1]).isBetween(1L, 5L);
            return (int) answer[0];
        })).as("the first takes admitted").isEqualTo(5);
        assertThat(replicas[0].take(new StorePermit(bucket, "first", StorePermit.CHECK))).containsExactly(0, 5, 0);

        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        int admitted = race(16, t -> {
            PostgresStore replica = replicas[t % 2];
            int allowed = 0;
            for (int round = 0; round < 30; round++) {
                StorePermit permit = permit(bucket, "churn");
                long[] answer = replica.take(permit);
                assertThat(answer[1]).as("held after a take").isBetween(0L, 5L);
                if (answer[0] == 1) {
                    allowed++;
                    most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    inFlight.decrementAndGet();
                    replica.giveBack(List.of(permit));
                }
            }
            return allowed;
        });
        assertThat(admitted).isPositive();
        assertThat(most.get()).isLessThanOrEqualTo(5);
        assertThat(replicas[1].take(new StorePermit(bucket, "churn", StorePermit.CHECK))).containsExactly(1, 0, 0);
    }

    @Test
    @DisplayName("give-backs and renewals of the same two keys in opposite orders, beside takes: no deadlock, no "
            + "failure (each statement locks its rows in (bucket, key) order)")
    void oppositeOrdersNeverDeadlock() throws Exception {
        Bucket bucket = bucket("order", 1_000, Duration.ofSeconds(60));
        PostgresStore[] replicas = {store(pool, null), store(otherPool, null)};
        int done = race(8, t -> {
            PostgresStore replica = replicas[t % 2];
            for (int round = 0; round < 40; round++) {
                StorePermit a = permit(bucket, "a");
                StorePermit b = permit(bucket, "b");
                assertThat(replica.take(a)).startsWith(1);
                assertThat(replica.take(b)).startsWith(1);
                List<StorePermit> both = t % 2 == 0 ? List.of(a, b) : List.of(b, a);
                assertThat(replica.renew(both)).containsExactly(1, 1);
                replica.giveBack(both);
            }
            return 1;
        });
        assertThat(done).isEqualTo(8);
        assertThat(replicas[0].take(new StorePermit(bucket, "a", StorePermit.CHECK))).containsExactly(1, 0, 0);
    }

    @Test
    @DisplayName("a concurrency bucket sent to consume (never, by the SPI) fails and writes nothing: its permits are "
            + "never counted as a window")
    void concurrencyBucketNeverCounted() throws Exception {
        PostgresStore store = store(pool, new ManualClock(T0));
        Bucket bucket = bucket("never-counted", 2, Duration.ofSeconds(30));
        assertThatThrownBy(() -> store.consume(List.of(new StoreItem(bucket, "k", 1))))
                .isInstanceOf(StoreException.class);
        assertThatThrownBy(() -> store.consume(List.of(new StoreItem(bucket, "k", 1),
                new StoreItem(Bucket.of(bucket("other", 1, Duration.ofSeconds(1)).name(), 5, Duration.ofSeconds(60)),
                        "k", 1)))).isInstanceOf(StoreException.class);
        try (Connection connection = pool.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT count(*) FROM " + TABLE + " WHERE bucket = ?")) {
            statement.setString(1, bucket.name());
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                assertThat(row.getLong(1)).isZero();
            }
        }
    }

    /** Work of one thread of {@link #race}: its answer is summed. */
    @FunctionalInterface
    private interface Racer {
        int run(int thread) throws Exception;
    }

    /** Runs {@code racer} on {@code threads} threads started together; the sum of their answers. */
    private static int race(int threads, Racer racer) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(executor.submit(() -> {
                    start.await();
                    return racer.run(thread);
                }));
            }
            int sum = 0;
            for (Future<Integer> result : results) {
                sum += result.get(2, TimeUnit.MINUTES);
            }
            return sum;
        } finally {
            executor.shutdownNow();
        }
    }

    /** A store on {@code dataSource}; on the database's time when {@code clock} is null, else on its instants. */
    private static PostgresStore store(DataSource dataSource, InstantSource clock) {
        return new PostgresStore(dataSource, TABLE, Duration.ofSeconds(30), 16, Optional.ofNullable(clock),
                ConnectionEviction.ABORT);
    }

    private Bucket bucket(String name, long permits, Duration lease) {
        return Bucket.concurrency(name + "-" + run, permits, lease, OutagePolicy.FALLBACK);
    }

    private static StorePermit permit(Bucket bucket, String key) {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == StorePermit.CHECK);
        return new StorePermit(bucket, key, id);
    }

    private static List<Instant> instants(java.sql.Array array) throws SQLException {
        List<Instant> instants = new ArrayList<>();
        for (Object value : (Object[]) array.getArray()) {
            instants.add(value instanceof java.sql.Timestamp timestamp ? timestamp.toInstant()
                    : ((OffsetDateTime) value).toInstant());
        }
        return instants;
    }
}
