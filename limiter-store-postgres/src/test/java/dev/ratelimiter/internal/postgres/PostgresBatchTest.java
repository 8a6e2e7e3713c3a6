package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
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
 * The PostgreSQL store's round trip of several calls, one statement (V4's function, {@link PostgresStore#consumeEach}):
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
        return new Bucket(name + "-" + UUID.randomUUID().toString().substring(0, 8), limit, Duration.ofMinutes(1));
    }

    @Test
    @DisplayName("calls on one key count one after the other; a refusal stops only its own call's later items")
    void eachCallAsAlone() throws Exception {
        Bucket small = bucket("small", 2);
        Bucket large = bucket("large", 100);
        Bucket windows = new Bucket("windows-" + UUID.randomUUID().toString().substring(0, 8),
                List.of(new Bucket.Limit(10, Duration.ofSeconds(10)), new Bucket.Limit(20, Duration.ofMinutes(1))),
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
    @DisplayName("token buckets in a batch: each call decided by its bucket's algorithm, in order, a second call on "
            + "the same key seeing the first's tokens taken; a refused token bucket stops only its own call")
    void tokenBucketsInBatch() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        Bucket tokens = new Bucket("tokens-" + run, List.of(new Bucket.Limit(2, Duration.ofDays(1))),
                OutagePolicy.FALLBACK, Bucket.Algorithm.TOKEN_BUCKET, 0);
        Bucket windows = new Bucket("token-windows-" + run, List.of(new Bucket.Limit(3, Duration.ofHours(1)),
                new Bucket.Limit(5, Duration.ofDays(1))), OutagePolicy.FALLBACK, Bucket.Algorithm.TOKEN_BUCKET, 0);
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
}
