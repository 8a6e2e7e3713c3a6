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
 * V10's function decides as V9's and answers as V9's (migrations/postgres/V10__one_upsert_per_window.sql): the same
 * batches, at the same instants, on rows of their own, give the same answers, call after call. What V10 changed is
 * the statements a sliding window or a token bucket of one window runs, and that a refused sliding window's row is
 * written back as read; so the batches mix those with fixed windows, checks, costs above the limit, and several items
 * in and out of (bucket, key) order.
 *
 * <p>Each bucket keeps its settings through a try. Where a sliding window's length changes between two decisions (a
 * reload), V10 reads a refused row as it wrote it back, rolled, as the store's one-item statement always has, and V9
 * rolled it again under the new length: both follow docs/stores.md#counters-across-a-change-of-settings (the current
 * window ends at most the new length from now) but may end it at different instants. That case is the contract's
 * (PostgresStoreTest's settings-change cases, through the function), not this equivalence's.
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
     * A bucket's one window: seconds and limit (a token bucket: interval in microseconds and capacity), and its
     * algorithm (0 fixed, 1 token bucket, 2 sliding window).
     */
    record Settings(int algorithm, long length, long limit) { }

    /** One item: its bucket (of three), cost and key (of three). */
    record Item(int bucket, long cost, int key) { }

    /** A batch: calls of one or more items, decided by one call of the function, after {@code advanceMillis}. */
    record Batch(long advanceMillis, List<List<Item>> calls) { }

    /** The three buckets' settings and the batches. */
    record Run(List<Settings> buckets, List<Batch> batches) { }

    @Property(tries = 150)
    @Label("V9's and V10's functions give the same answers to the same batches at the same instants")
    void sameAnswers(@ForAll("runs") Run run) throws SQLException {
        long tried = TRY.incrementAndGet();
        Instant now = T0;
        try (Connection connection = pool.getConnection()) {
            for (Batch batch : run.batches()) {
                now = now.plusMillis(batch.advanceMillis());
                long[] v9 = decide(connection, "rate_limit_counters_decide_v9", now, "v9-" + tried, run.buckets(),
                        batch);
                long[] v10 = decide(connection, "rate_limit_counters_decide_v10", now, "vX-" + tried, run.buckets(),
                        batch);
                assertThat(v10).as("at %s, %s", now, batch).containsExactly(v9);
            }
        }
    }

    @Provide
    Arbitrary<Run> runs() {
        Arbitrary<Settings> settings = Combinators.combine(
                Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(1, 3),
                Arbitraries.longs().between(1, 4)).as((algorithm, seconds, limit) ->
                        // A token bucket's interval: its window over its limit, in microseconds, as Bucket gives it.
                        new Settings(algorithm, algorithm == 1 ? seconds * 1_000_000 / limit : seconds, limit));
        Arbitrary<Item> item = Combinators.combine(
                Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(0, 4),
                Arbitraries.integers().between(0, 2)).as(Item::new);
        Arbitrary<List<Item>> call = item.list().ofMinSize(1).ofMaxSize(3);
        Arbitrary<Batch> batch = Combinators.combine(
                Arbitraries.longs().between(0, 2_500),
                call.list().ofMinSize(1).ofMaxSize(3)).as(Batch::new);
        return Combinators.combine(settings.list().ofSize(3), batch.list().ofMinSize(1).ofMaxSize(25)).as(Run::new);
    }

    /**
     * One call of {@code function} as the store binds it (CounterStatements#bindDecide's layout), its keys prefixed
     * with {@code keys}; the bucket's name carries its algorithm, as the store's row keys keep algorithms apart.
     */
    private static long[] decide(Connection connection, String function, Instant now, String keys,
                                 List<Settings> buckets, Batch batch) throws SQLException {
        List<String> names = new ArrayList<>();
        List<Long> numbers = new ArrayList<>();
        numbers.add((long) batch.calls().size());
        for (List<Item> call : batch.calls()) {
            numbers.add((long) call.size());
        }
        for (List<Item> call : batch.calls()) {
            for (Item item : call) {
                Settings bucket = buckets.get(item.bucket());
                names.add("b" + item.bucket() + "-" + bucket.algorithm());
                names.add(keys + "-" + item.key());
                numbers.addAll(List.of((long) bucket.algorithm(), item.cost(), 1L, bucket.length(), bucket.limit()));
            }
        }
        return DecideCalls.decide(connection, function, now, names, numbers);
    }
}
