package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.spi.StoreItem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PostgreSQL store's round trip of several calls, one statement (the migration's function, {@link PostgresStore#consumeEach}):
 * each call decided as alone, in order, stopping at its own first refusal only.
 */
class PostgresBatchTest {

    private static String schema;
    private static com.zaxxer.hikari.HikariDataSource dataSource;
    private static PostgresStore store;

    @BeforeAll
    static void migrate() {
        schema = PostgresTarget.newSchema("batch");
        dataSource = PostgresTarget.pool(schema, 4);
        store = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 4, Optional.empty(),
                ConnectionEviction.ABORT);
    }

    @AfterAll
    static void drop() {
        dataSource.close();
        PostgresTarget.dropSchema(schema);
    }

    private static Bucket bucket(String name, long limit) {
        return Bucket.of(name + "-" + UUID.randomUUID().toString().substring(0, 8), limit, Duration.ofMinutes(1));
    }

    @Test
    @DisplayName("calls on one key count one after the other; a refusal stops only its own call's later items")
    void eachCallAsAlone() throws Exception {
        Bucket small = bucket("small", 2);
        Bucket large = bucket("large", 100);
        Bucket windows = Bucket.of("windows-" + UUID.randomUUID().toString().substring(0, 8),
                List.of(new Limit(10, Duration.ofSeconds(10)), new Limit(20, Duration.ofMinutes(1))),
                OutagePolicy.FALLBACK);
        List<StoreItem> refusedThenLarge = List.of(new StoreItem(small, "k", 1), new StoreItem(large, "k", 1));

        long[][] answers = store.consumeEach(List.of(
                List.of(new StoreItem(small, "k", 1)),
                List.of(new StoreItem(small, "k", 1)),
                refusedThenLarge,
                List.of(new StoreItem(large, "k", 1)),
                List.of(new StoreItem(windows, "k", 3)),
                List.of(new StoreItem(large, "k", 0))));

        assertThat(answers[0]).startsWith(1, 1);
        assertThat(answers[1]).startsWith(1, 2);
        assertThat(answers[2]).hasSize(3).startsWith(0, 2); // refused: large not decided, nor counted
        assertThat(answers[3]).startsWith(1, 1);
        assertThat(answers[4]).hasSize(5).startsWith(1, 3);
        assertThat(answers[4][3]).isEqualTo(3);
        assertThat(answers[5]).startsWith(1, 1); // cost 0 checks: counts nothing
        assertThat(store.consume(List.of(new StoreItem(large, "k", 1)))).startsWith(1, 2);
    }

    @Test
    @DisplayName("one-item calls out of (bucket, key) order: sent in that order, each answer at its call's place, "
            + "calls of one key counted in the order they came")
    void callsOutOfOrderAnsweredInPlace() throws Exception {
        Bucket first = bucket("a-first", 2);
        Bucket second = bucket("b-second", 100);
        long[][] answers = store.consumeEach(List.of(
                List.of(new StoreItem(second, "z", 1)),
                List.of(new StoreItem(first, "y", 1)),
                List.of(new StoreItem(second, "a", 5)),
                List.of(new StoreItem(first, "y", 1)),
                List.of(new StoreItem(first, "y", 1)),
                List.of(new StoreItem(second, "z", 1))));

        assertThat(answers[0]).startsWith(1, 1);
        assertThat(answers[1]).startsWith(1, 1);
        assertThat(answers[2]).startsWith(1, 5);
        assertThat(answers[3]).startsWith(1, 2);
        assertThat(answers[4]).as("the third of a limit of 2").startsWith(0, 2);
        assertThat(answers[5]).startsWith(1, 2);
    }

    @Test
    @DisplayName("token buckets in a batch: each call decided by its bucket's algorithm, in order, a second call on "
            + "the same key seeing the first's tokens taken; a refused token bucket stops only its own call")
    void tokenBucketsInBatch() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        Bucket tokens = Bucket.of("tokens-" + run, List.of(new Limit(2, Duration.ofDays(1))),
                OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        Bucket windows = Bucket.of("token-windows-" + run, List.of(new Limit(3, Duration.ofHours(1)),
                new Limit(5, Duration.ofDays(1))), OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        Bucket fixed = bucket("fixed", 100);

        long[][] answers = store.consumeEach(List.of(
                List.of(new StoreItem(tokens, "k", 1)),
                List.of(new StoreItem(tokens, "k", 1), new StoreItem(windows, "k", 2)),
                List.of(new StoreItem(tokens, "k", 1), new StoreItem(fixed, "k", 1)),
                List.of(new StoreItem(fixed, "k", 1), new StoreItem(windows, "k", 0))));

        assertThat(answers[0]).hasSize(3).startsWith(1, 1);
        assertThat(answers[1]).hasSize(8).startsWith(1, 2);
        assertThat(answers[1][3]).isEqualTo(1);
        assertThat(answers[1][4]).as("two tokens of the hour's window, 20 min each").isEqualTo(2);
        assertThat(answers[1][6]).as("two of the day's, of 4.8 h each").isEqualTo(2);
        assertThat(answers[2]).as("refused: the fixed window not decided").hasSize(3).startsWith(0, 2);
        assertThat(answers[3]).hasSize(8).startsWith(1, 1);
        assertThat(answers[3][3]).as("the check: allowed, nothing taken").isEqualTo(1);
        assertThat(answers[3][4]).isEqualTo(2);
    }

    @Test
    @DisplayName("sliding windows in a batch among fixed windows and token buckets: each call decided by its bucket's "
            + "algorithm, in order, a second call on the same key seeing the first's count, a sliding item answering "
            + "three numbers per window; a refused sliding window stops only its own call")
    void slidingWindowsInBatch() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        PostgresStore bound = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 4,
                Optional.of(java.time.InstantSource.fixed(java.time.Instant.parse("2030-01-01T00:00:00Z"))),
                ConnectionEviction.ABORT);
        Bucket sliding = Bucket.of("sliding-" + run, List.of(new Limit(2, Duration.ofMinutes(1))),
                OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        Bucket slidingWindows = Bucket.of("sliding-windows-" + run, List.of(new Limit(3, Duration.ofSeconds(10)),
                new Limit(5, Duration.ofHours(1))), OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        Bucket tokens = Bucket.of("sliding-tokens-" + run, List.of(new Limit(2, Duration.ofDays(1))),
                OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        Bucket fixed = bucket("sliding-fixed", 100);
        List<List<StoreItem>> calls = List.of(
                List.of(new StoreItem(sliding, "k", 1)),
                List.of(new StoreItem(fixed, "k", 1), new StoreItem(sliding, "k", 1), new StoreItem(tokens, "k", 1)),
                List.of(new StoreItem(sliding, "k", 1), new StoreItem(fixed, "k", 1)),
                List.of(new StoreItem(slidingWindows, "k", 2), new StoreItem(sliding, "k", 0)),
                List.of(new StoreItem(tokens, "k", 1), new StoreItem(slidingWindows, "k", 1)),
                List.of(new StoreItem(fixed, "k", 0)));
        assertThat(calls).extracting(call -> call.stream().mapToInt(item -> StoreItem.answerLength(item.bucket()))
                .sum()).as("each call's answer when every item is decided").containsExactly(4, 10, 7, 11, 10, 3);

        long[][] answers = bound.consumeEach(calls);

        assertThat(answers[0]).containsExactly(1, 1, 0, 60_000);
        assertThat(answers[1]).as("each item by its algorithm").containsExactly(1, 1, 60_000, 1, 2, 0, 60_000, 1, 1,
                43_200_000);
        assertThat(answers[2]).as("the sliding window refused: the fixed window not decided")
                .containsExactly(0, 2, 0, 60_000);
        assertThat(answers[3]).containsExactly(1, 2, 0, 10_000, 2, 0, 3_600_000, 0, 2, 0, 60_000);
        assertThat(answers[4]).as("a token taken, then two sliding windows").containsExactly(1, 2, 86_400_000, 1, 3,
                0, 10_000, 3, 0, 3_600_000);
        assertThat(answers[5]).containsExactly(1, 1, 60_000);
    }

    @Test
    @DisplayName("a token bucket's counted item keeps its row's end in a batch as alone while the TAT does not pass "
            + "it, so its update stays HOT; past it, the end moves a slack past the TAT")
    void tokenBucketInBatchKeepsItsRowsEnd() throws Exception {
        java.time.Instant now = java.time.Instant.parse("2030-01-01T00:00:00Z");
        PostgresStore bound = new PostgresStore(dataSource, "rate_limit_counters", Duration.ofSeconds(10), 4,
                Optional.of(java.time.InstantSource.fixed(now)), ConnectionEviction.ABORT);
        // 100 an hour: a token every 36 s, a full refill of an hour, so a moved end goes a minute past the TAT.
        Bucket tokens = Bucket.of("hot-tokens-" + UUID.randomUUID().toString().substring(0, 8),
                List.of(new Limit(100, Duration.ofHours(1))), OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        bound.consume(List.of(new StoreItem(tokens, "k", 1))); // TAT now + 36 s, the row's end
        bound.consume(List.of(new StoreItem(tokens, "k", 1))); // TAT now + 72 s passes it: end now + 132 s
        java.sql.Timestamp end = rowEnd(tokens);
        assertThat(end.toInstant()).isEqualTo(now.plusSeconds(132));

        // A fixed window beside it, named "beside-..." so the batch comes out of (bucket, key) order: the function's
        // lock pass runs first, as it does for most batches under load.
        long[][] kept = bound.consumeEach(List.of(List.of(new StoreItem(tokens, "k", 1)),
                List.of(new StoreItem(fixedBucket(), "k", 1))));

        assertThat(kept[0]).as("TAT now + 108 s: 3 tokens taken, full in 108 s").containsExactly(1, 3, 108_000);
        assertThat(rowEnd(tokens)).as("the TAT did not pass the end: kept").isEqualTo(end);

        long[][] moved = bound.consumeEach(List.of(List.of(new StoreItem(tokens, "k", 1)),
                List.of(new StoreItem(fixedBucket(), "k", 1))));

        assertThat(moved[0]).as("TAT now + 144 s").containsExactly(1, 4, 144_000);
        assertThat(rowEnd(tokens).toInstant()).as("past the end: moved a minute past the TAT")
                .isEqualTo(now.plusSeconds(204));
    }

    private static Bucket fixedBucket() {
        return bucket("beside", 100);
    }

    /** The row's end of {@code bucket}'s token bucket on key {@code k}. */
    private static java.sql.Timestamp rowEnd(Bucket bucket) throws java.sql.SQLException {
        try (java.sql.Connection connection = dataSource.getConnection();
             java.sql.PreparedStatement read = connection.prepareStatement(
                     "SELECT ends_at FROM rate_limit_counters WHERE bucket = ? AND key = 'tb:k'")) {
            read.setString(1, bucket.name());
            try (java.sql.ResultSet row = read.executeQuery()) {
                assertThat(row.next()).as("the token bucket's row").isTrue();
                return row.getTimestamp(1);
            }
        }
    }
}
