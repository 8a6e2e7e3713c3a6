package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariDataSource;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * V10's function decides as V9's and answers as V9's (migrations/postgres/V10__sliding_windows_in_batches.sql): the same
 * batches, at the same instants, on rows of their own, give the same answers, call after call. What V10 changed is
 * how a sliding window of one window is decided in it, so the batches mix those with fixed windows and token
 * buckets, checks, costs above the limit, several items in and out of (bucket, key) order, and a bucket's window
 * length and limit changing from one item to the next (a reload, or a plan).
 */
class DecideV10EquivalenceTest {

    private static final Instant T0 = Instant.parse("2031-06-01T00:00:00Z");
    /** Each try its own keys, so the tries share the schema and the pool. */
    private static final AtomicLong TRY = new AtomicLong();

    private static String schema;
    private static HikariDataSource pool;

    @BeforeContainer
    static void migrate() {
        schema = PostgresTarget.newSchema("v10_equivalence");
        pool = PostgresTarget.pool(schema, 1);
    }

    @AfterContainer
    static void drop() {
        pool.close();
        PostgresTarget.dropSchema(schema);
    }

    /**
     * One item: its bucket (of three), the bucket's one window as this item sees it (its algorithm: 0 fixed, 1 token
     * bucket, 2 sliding window; seconds and limit, a token bucket's interval in microseconds and capacity), its cost
     * and its key (of three).
     */
    record Item(int bucket, int algorithm, long length, long limit, long cost, int key) { }

    /** A batch: calls of one or more items, decided by one call of the function, after {@code advanceMillis}. */
    record Batch(long advanceMillis, List<List<Item>> calls) { }

    @Property(tries = 150)
    @Label("V9's and V10's functions give the same answers to the same batches at the same instants")
    void sameAnswers(@ForAll("batches") List<Batch> batches) throws SQLException {
        long tried = TRY.incrementAndGet();
        Instant now = T0;
        try (Connection connection = pool.getConnection()) {
            for (Batch batch : batches) {
                now = now.plusMillis(batch.advanceMillis());
                long[] v9 = decide(connection, "rate_limit_counters_decide_v9", now, "v9-" + tried, batch);
                long[] v10 = decide(connection, "rate_limit_counters_decide_v10", now, "vX-" + tried, batch);
                assertThat(v10).as("at %s, %s", now, batch).containsExactly(v9);
            }
        }
    }

    @Provide
    Arbitrary<List<Batch>> batches() {
        Arbitrary<Item> item = Combinators.combine(
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(1, 3),
                Arbitraries.longs().between(1, 4),
                Arbitraries.longs().between(0, 4),
                Arbitraries.integers().between(0, 2)).as((bucket, algorithm, seconds, limit, cost, key) ->
                        // A token bucket's interval: its window over its limit, in microseconds, as Bucket gives it.
                        new Item(bucket, algorithm, algorithm == 1 ? seconds * 1_000_000 / limit : seconds, limit,
                                cost, key));
        Arbitrary<List<Item>> call = item.list().ofMinSize(1).ofMaxSize(3);
        Arbitrary<Batch> batch = Combinators.combine(
                Arbitraries.longs().between(0, 2_500),
                call.list().ofMinSize(1).ofMaxSize(3)).as(Batch::new);
        return batch.list().ofMinSize(1).ofMaxSize(25);
    }

    /**
     * One call of {@code function} as the store binds it (CounterStatements#bindDecide's layout), its keys prefixed
     * with {@code keys}; the bucket's name carries its algorithm, as the store's row keys keep algorithms apart.
     */
    private static long[] decide(Connection connection, String function, Instant now, String keys, Batch batch)
            throws SQLException {
        List<String> names = new ArrayList<>();
        List<Long> numbers = new ArrayList<>();
        numbers.add((long) batch.calls().size());
        for (List<Item> call : batch.calls()) {
            numbers.add((long) call.size());
        }
        for (List<Item> call : batch.calls()) {
            for (Item item : call) {
                names.add("b" + item.bucket() + "-" + item.algorithm());
                names.add(keys + "-" + item.key());
                numbers.addAll(List.of((long) item.algorithm(), item.cost(), 1L, item.length(), item.limit()));
            }
        }
        return DecideCalls.decide(connection, function, now, names, numbers);
    }
}
