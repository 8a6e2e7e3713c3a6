package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.spi.StoreItem;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migration's function decides a batch as the store decides each of its items alone: the same batches, at the
 * same instants, on rows of their own, give the same answers, call after call, whether one call of the function
 * decides them all ({@link PostgresStore#consumeEach}) or each item is decided alone, a call stopping at its first
 * refusal. Alone is, first, the store's own call of one item ({@link PostgresStore#consume}: the one-item upsert of a
 * fixed window, a token bucket or a sliding window, the read of a check, or the function for an item no statement
 * decides), since the rules are written twice, in the function and in the one-item statements, which decide on the
 * same rows; and, second, across changes of a bucket's window length and limit (a reload, or a plan), one call of
 * the function per item, since there the statements and the function write a refusal differently (see
 * {@link #batches()}). The batches mix sliding windows with fixed windows and token buckets, checks, costs above the
 * limit, and several items in and out of (bucket, key) order.
 */
class DecideFunctionEquivalenceTest {

    /** 30 s before an hour ends: the calendar hour items cross its boundary in the first tries. */
    private static final Instant T0 = Instant.parse("2031-06-01T00:59:30Z");
    /** Each try its own keys, so the tries share the schema and the pool. */
    private static final AtomicLong TRY = new AtomicLong();

    private static String schema;
    private static HikariDataSource pool;
    private static ManualClock clock;
    private static PostgresStore store;

    @BeforeContainer
    static void migrate() {
        schema = PostgresTarget.newSchema("function_equivalence");
        pool = PostgresTarget.pool(schema, 1);
        clock = new ManualClock(T0);
        store = new PostgresStore(pool, PostgresChain.TABLE, Duration.ofSeconds(30), 1, Optional.of(clock),
                ConnectionEviction.ABORT);
    }

    @AfterContainer
    static void drop() {
        pool.close();
        PostgresTarget.dropSchema(schema);
    }

    /**
     * One item: its bucket (of three), the bucket's one window as this item sees it (its algorithm: 0 fixed, 1 token
     * bucket, 2 sliding window, 3 a fixed window of one calendar hour, whose length the library sends as the
     * milliseconds left until the hour ends; seconds and limit), its cost and its key (of three).
     */
    record Item(int bucket, int algorithm, long seconds, long limit, long cost, int key) {

        StoreItem toStore(String keys) {
            Algorithm kind = algorithm == 1 ? Algorithm.TOKEN_BUCKET
                    : algorithm == 2 ? Algorithm.SLIDING_WINDOW : Algorithm.FIXED_WINDOW;
            // The bucket's name carries its algorithm, as the store's row keys keep algorithms apart.
            Limit window = algorithm == 3 ? Limit.perCalendar(limit, CalendarWindow.HOUR)
                    : new Limit(limit, Duration.ofSeconds(seconds));
            Bucket bucket = Bucket.of("b" + this.bucket + "-" + algorithm, List.of(window), OutagePolicy.FALLBACK,
                    kind, 0);
            return new StoreItem(bucket, keys + "-" + key, cost);
        }
    }

    /** A batch: calls of one or more items, decided at once, after {@code advanceMillis}. */
    record Batch(long advanceMillis, List<List<Item>> calls) { }

    @Property(tries = 75)
    @Label("a batch in one call of the function and each item alone in the store's statement give the same answers")
    void sameAsTheStatements(@ForAll("batches") List<Batch> batches) throws Exception {
        assertSameAnswers(batches, false, item -> store.consume(List.of(item)));
    }

    @Property(tries = 75)
    @Label("a batch in one call of the function and each item alone in a call of its own give the same answers, "
            + "across changes of a bucket's window length and limit")
    void sameAcrossSettingsChanges(@ForAll("changingBatches") List<Batch> batches) throws Exception {
        assertSameAnswers(batches, true, item -> store.consumeEach(List.of(List.of(item)))[0]);
    }

    @Example
    @Label("a refused item again and again, as in a hot key's batch, is answered as alone; an item between them that "
            + "counts on its row changes the next one's answer")
    void repeatedRefusals() throws Exception {
        for (int algorithm = 0; algorithm <= 3; algorithm++) {
            Item refused = new Item(0, algorithm, 1, 1, 1, 0); // a limit of 1: the second is refused
            Item larger = new Item(0, algorithm, 1, 3, 1, 0); // the same row under a limit of 3: counted
            assertSameAnswers(List.of(new Batch(0, List.of(List.of(refused), List.of(refused), List.of(refused),
                            List.of(larger, refused), List.of(refused)))), true,
                    item -> store.consumeEach(List.of(List.of(item)))[0]);
        }
    }

    @Example
    @Label("a hot key's batch, in (bucket, key) order with keys repeated (decided as it comes, without the lock pass), "
            + "is answered as alone: counted up to the limit, then refused, a check and a call of two items between; "
            + "a key that starts with a check and a cost above its limit, which create no row, then counts")
    void hotKeyInOrder() throws Exception {
        for (int algorithm = 0; algorithm <= 3; algorithm++) {
            int bucket = 2; // a limit of 1 + (2 + algorithm) % 4: 3, 4, 1 and 2
            List<List<Item>> calls = new ArrayList<>();
            for (long cost : new long[] {1, 1, 0, 2, 1, 1}) {
                calls.add(List.of(sameWindow(bucket, algorithm, cost, 0)));
            }
            calls.add(List.of(sameWindow(bucket, algorithm, 1, 0), sameWindow(bucket, algorithm, 1, 0)));
            for (long cost : new long[] {0, 5, 1, 1}) {
                calls.add(List.of(sameWindow(bucket, algorithm, cost, 1)));
            }
            assertSameAnswers(List.of(new Batch(0, calls), new Batch(400, calls)), false,
                    item -> store.consume(List.of(item)));
        }
    }

    /** An item whose bucket keeps one window length and limit per name, as {@link #batches(boolean)} makes them. */
    private static Item sameWindow(int bucket, int algorithm, long cost, int key) {
        return new Item(bucket, algorithm, 1 + bucket, 1 + (bucket + algorithm) % 4, cost, key);
    }

    /** How the items are decided alone: one call of the store each. */
    interface Alone {
        long[] decide(StoreItem item) throws Exception;
    }

    private static void assertSameAnswers(List<Batch> batches, boolean changing, Alone alone) throws Exception {
        long tried = TRY.incrementAndGet();
        for (Batch batch : batches) {
            clock.advance(Duration.ofMillis(batch.advanceMillis()));
            List<List<StoreItem>> together = new ArrayList<>();
            for (List<Item> call : batch.calls()) {
                together.add(call.stream().map(item -> item.toStore("batch-" + changing + tried)).toList());
            }
            long[][] batched = store.consumeEach(together);
            for (int c = 0; c < batch.calls().size(); c++) {
                long[] answers = new long[0];
                for (Item item : batch.calls().get(c)) {
                    long[] answer = alone.decide(item.toStore("alone-" + changing + tried));
                    answers = concat(answers, answer);
                    if (answer[0] == 0) {
                        break; // the call's later items are neither decided nor counted
                    }
                }
                assertThat(batched[c]).as("at %s, call %d of %s", clock.instant(), c, batch).containsExactly(answers);
            }
        }
    }

    /**
     * Batches whose buckets keep one window length and limit per name: the one-item statements and the function
     * read a row kept under other settings alike only where the statement writes what the function does (a refused
     * sliding window's statement writes the row rolled, a token bucket's check writes nothing), so settings changes
     * are compared function to function ({@link #changingBatches()}).
     */
    @Provide
    Arbitrary<List<Batch>> batches() {
        return batches(false);
    }

    /** Batches whose items see their bucket's window length and limit change from one item to the next. */
    @Provide
    Arbitrary<List<Batch>> changingBatches() {
        return batches(true);
    }

    private static Arbitrary<List<Batch>> batches(boolean changing) {
        Arbitrary<Item> item = Combinators.combine(
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 3),
                Arbitraries.longs().between(1, 3),
                Arbitraries.longs().between(1, 4),
                Arbitraries.longs().between(0, 4),
                Arbitraries.integers().between(0, 2)).as((bucket, algorithm, seconds, limit, cost, key) -> changing
                        ? new Item(bucket, algorithm, seconds, limit, cost, key)
                        : new Item(bucket, algorithm, 1 + bucket, 1 + (bucket + algorithm) % 4, cost, key));
        Arbitrary<List<Item>> call = item.list().ofMinSize(1).ofMaxSize(3);
        Arbitrary<Batch> batch = Combinators.combine(
                Arbitraries.longs().between(0, 2_500),
                call.list().ofMinSize(1).ofMaxSize(3)).as(Batch::new);
        return batch.list().ofMinSize(1).ofMaxSize(25);
    }

    private static long[] concat(long[] first, long[] second) {
        long[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}
