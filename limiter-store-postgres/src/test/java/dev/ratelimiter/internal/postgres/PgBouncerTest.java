package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.spi.Sweepable;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.verdict.Refunds;
import dev.ratelimiter.internal.postgres.PgBouncer.PoolMode;
import dev.ratelimiter.testing.LogCapture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store through PgBouncer (the Debian package's, 1.18) with its default settings, in transaction and in session
 * pooling mode, in front of a PostgreSQL cluster of the test's own, the library's own pool with
 * {@code ratelimiter.postgres.pgbouncer=true}. PgBouncer's server pool is kept at 2 connections, so that clients'
 * transactions keep landing on different server connections: what a busy pooler does.
 */
class PgBouncerTest {

    private static final int THREADS = 8;
    private static final int CALLS = 50;
    /**
     * The paused server's test: a deadline whose calls before the pause still succeed on a loaded 2-core machine
     * (100 ms did not, through PgBouncer), and the bound on every call once paused, 10 x that deadline.
     */
    private static final Duration PAUSED_DEADLINE = Duration.ofMillis(500);
    private static final Duration BOUND = PAUSED_DEADLINE.multipliedBy(10);
    /**
     * The deadline of the tests that count calls, not time them: 8 clients queue for PgBouncer's 2 server
     * connections, and on a loaded machine that queue alone outlasts the default 100 ms, failing calls the test
     * counts on.
     */
    private static final Duration UNHURRIED = Duration.ofSeconds(10);
    private static final int LOCK_SPACE = 0x524C; // the sweep's advisory lock space, "RL"

    private static PostgresCluster cluster;

    private final List<AutoCloseable> closing = new ArrayList<>();
    private ExecutorService threads;

    @BeforeAll
    static void startCluster() {
        cluster = PostgresCluster.database("pooled"); // not "pgbouncer": PgBouncer's own console
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @AfterEach
    void stop() throws Exception {
        if (threads != null) {
            threads.shutdownNow();
            assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        cluster.resume();
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        cluster.execute("TRUNCATE rate_limit_counters");
    }

    @ParameterizedTest(name = "{0} mode")
    @EnumSource(PoolMode.class)
    @DisplayName("8 threads x 50 decisions on one key through PgBouncer: every one counted by PostgreSQL, none failed (no refused startup parameter, no lost prepared statement after the fifth use)")
    void decisionsThroughPgBouncer(PoolMode mode) throws Exception {
        PgBouncer bouncer = bouncer(mode);
        PostgresChain chain = chain(bouncer, "rl-pgbouncer-" + mode.name().toLowerCase(java.util.Locale.ROOT));
        Bucket bucket = Bucket.of("through-" + mode.name().toLowerCase(java.util.Locale.ROOT), 1_000_000,
                Duration.ofSeconds(300));

        List<List<Verdict>> verdicts = atOnce(THREADS, () -> {
            List<Verdict> mine = new ArrayList<>();
            for (int i = 0; i < CALLS; i++) {
                mine.add(chain.limiter.consume(bucket, "k"));
            }
            return mine;
        });

        assertThat(verdicts).allSatisfy(mine -> assertThat(mine).allSatisfy(verdict ->
                assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED)));
        assertThat(chain.monitor.errors()).as("failed store calls (last: %s)", chain.monitor.status().lastError())
                .isZero();
        assertThat(chain.store.calls()).isEqualTo(THREADS * CALLS);
        assertThat(count(bucket.name())).as("the count in PostgreSQL").isEqualTo(THREADS * CALLS);
    }

    @ParameterizedTest(name = "{0} mode")
    @EnumSource(PoolMode.class)
    @DisplayName("8 threads x 50 calls of two buckets through PgBouncer: each call one statement (the migration's "
            + "function), every bucket counted once per call, none failed")
    void severalBucketsThroughPgBouncer(PoolMode mode) throws Exception {
        PgBouncer bouncer = bouncer(mode);
        PostgresChain chain = chain(bouncer, "rl-pgbouncer-several-" + mode.name().toLowerCase(java.util.Locale.ROOT));
        String suffix = mode.name().toLowerCase(java.util.Locale.ROOT);
        Bucket first = Bucket.of("several-a-" + suffix, 1_000_000, Duration.ofSeconds(300));
        Bucket second = Bucket.of("several-b-" + suffix, List.of(new Limit(1_000_000, Duration.ofSeconds(60)),
                new Limit(1_000_000, Duration.ofSeconds(300))), dev.ratelimiter.OutagePolicy.FAIL_CLOSED);
        List<dev.ratelimiter.spi.StoreItem> items = List.of(new dev.ratelimiter.spi.StoreItem(first, "k", 1),
                new dev.ratelimiter.spi.StoreItem(second, "k", 1));

        List<List<Verdict>> verdicts = atOnce(THREADS, () -> {
            List<Verdict> mine = new ArrayList<>();
            for (int i = 0; i < CALLS; i++) {
                mine.addAll(List.of(dev.ratelimiter.internal.core.chain.BatchingLimiter.consumeAll(chain.limiter, items)));
            }
            return mine;
        });

        assertThat(verdicts).allSatisfy(mine -> assertThat(mine).hasSize(2 * CALLS).allSatisfy(verdict ->
                assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED)));
        assertThat(chain.monitor.errors()).as("failed store calls (last: %s)", chain.monitor.status().lastError())
                .isZero();
        assertThat(chain.store.calls()).as("one store call per method call").isEqualTo(THREADS * CALLS);
        assertThat(count(first.name())).isEqualTo(THREADS * CALLS);
        assertThat(count(second.name())).as("the first window's count").isEqualTo(THREADS * CALLS);
    }

    @ParameterizedTest(name = "{0} mode")
    @EnumSource(PoolMode.class)
    @DisplayName("8 threads x 25 token-bucket calls through PgBouncer, each one upsert of one window and one call of "
            + "the function for two buckets: every token taken once, none failed")
    void tokenBucketsThroughPgBouncer(PoolMode mode) throws Exception {
        // A token a day: none comes back while the test runs, so the tokens taken are exact.
        everyCallCountedOnce(mode, Algorithm.TOKEN_BUCKET, "tokens");
    }

    @ParameterizedTest(name = "{0} mode")
    @EnumSource(PoolMode.class)
    @DisplayName("8 threads x 25 sliding-window calls through PgBouncer, one upsert of one window and one call of "
            + "the function for two buckets (one window; two windows): every call counted once, none failed")
    void slidingWindowsThroughPgBouncer(PoolMode mode) throws Exception {
        // Windows of a day: none rolls while the test runs, so the counts are exact.
        everyCallCountedOnce(mode, Algorithm.SLIDING_WINDOW, "sliding");
        assertThat(count("sliding-a-" + mode.name().toLowerCase(java.util.Locale.ROOT)))
                .as("the count in PostgreSQL").isEqualTo(THREADS * CALLS);
    }

    /**
     * 8 threads x 25 calls through PgBouncer in {@code mode}, each of a bucket of one window of a day (alone) and of
     * it with a bucket of two windows (in one call): every one allowed, none failed, each window's remaining down by
     * exactly the calls made.
     */
    private void everyCallCountedOnce(PoolMode mode, Algorithm algorithm, String name) throws Exception {
        PgBouncer bouncer = bouncer(mode);
        String suffix = mode.name().toLowerCase(java.util.Locale.ROOT);
        PostgresChain chain = chain(bouncer, "rl-pgbouncer-" + name + "-" + suffix);
        Bucket one = Bucket.of(name + "-a-" + suffix, List.of(new Limit(1_000, Duration.ofDays(1))),
                OutagePolicy.FALLBACK, algorithm, 0);
        Bucket two = Bucket.of(name + "-b-" + suffix, List.of(new Limit(1_000, Duration.ofHours(1)),
                new Limit(1_000, Duration.ofDays(1))), OutagePolicy.FALLBACK, algorithm, 0);
        List<dev.ratelimiter.spi.StoreItem> items = List.of(new dev.ratelimiter.spi.StoreItem(one, "k", 1),
                new dev.ratelimiter.spi.StoreItem(two, "k", 1));

        List<List<Verdict>> verdicts = atOnce(THREADS, () -> {
            List<Verdict> mine = new ArrayList<>();
            for (int i = 0; i < CALLS / 2; i++) {
                mine.add(chain.limiter.consume(one, "k"));
                mine.addAll(List.of(dev.ratelimiter.internal.core.chain.BatchingLimiter.consumeAll(chain.limiter,
                        items)));
            }
            return mine;
        });

        assertThat(verdicts).allSatisfy(mine -> assertThat(mine).hasSize(3 * CALLS / 2).allSatisfy(verdict ->
                assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED)));
        assertThat(chain.monitor.errors()).as("failed store calls (last: %s)", chain.monitor.status().lastError())
                .isZero();
        assertThat(chain.limiter.consume(one, "k", 0).remaining()).isEqualTo(1_000 - THREADS * CALLS);
        assertThat(chain.limiter.consume(two, "k", 0).windows()).extracting(Verdict.Window::remaining)
                .containsExactly(1_000L - THREADS * CALLS / 2, 1_000L - THREADS * CALLS / 2);
    }

    @Test
    @DisplayName("8 threads x 25 calls of cost 2 through PgBouncer in transaction mode, each given 1 back by a refund: "
            + "every refund applied once, none failed")
    void refundsThroughTransactionPooling() throws Exception {
        PostgresChain chain = chain(bouncer(PoolMode.TRANSACTION), "rl-pgbouncer-refunds");
        Bucket bucket = Bucket.of("refunds", 1_000_000, Duration.ofDays(1));

        List<Boolean> refunded = atOnce(THREADS, () -> {
            boolean all = true;
            for (int i = 0; i < CALLS / 2; i++) {
                Verdict verdict = chain.storeLimiter.consume(bucket, "k", 2);
                all &= chain.storeLimiter.refund(List.of(Refunds.refund(
                        bucket, "k", 1, verdict, 0)));
            }
            return all;
        });

        assertThat(refunded).containsOnly(true);
        assertThat(chain.monitor.errors()).as("failed store calls (last: %s)", chain.monitor.status().lastError())
                .isZero();
        assertThat(count("refunds")).as("2 counted and 1 given back per call").isEqualTo(THREADS * CALLS / 2);
    }

    @Test
    @DisplayName("behind PgBouncer without ratelimiter.postgres.pgbouncer=true: UNAVAILABLE, and the readiness data and "
            + "the log name that setting, not only PgBouncer's 'unsupported startup parameter: options'")
    void missingPgBouncerSettingIsNamed() {
        PgBouncer bouncer = bouncer(PoolMode.SESSION);
        PostgresChain chain = new PostgresChain(PostgresChain.settings("jdbc:postgresql://127.0.0.1:" + bouncer.port()
                + "/" + cluster.database() + "?ApplicationName=rl-pgbouncer-unset", THREADS, false));
        closing.add(chain);
        Bucket bucket = Bucket.of("unset", 10, Duration.ofSeconds(60), OutagePolicy.FAIL_CLOSED);
        try (LogCapture log = LogCapture.of(PostgresStore.class)) {
            for (int i = 0; i < 10 && !chain.breaker.isOpen(); i++) {
                assertThat(chain.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.UNAVAILABLE);
            }
            assertThat(chain.degraded()).isTrue();
            assertThat(chain.monitor.status().lastError()).hasValueSatisfying(error -> assertThat(error)
                    .contains("unsupported startup parameter: options", "ratelimiter.postgres.pgbouncer=true",
                            "docs/stores.md#pgbouncer"));
            assertThat(log.messages(java.util.logging.Level.SEVERE)).singleElement().satisfies(message ->
                    assertThat(message).contains("ratelimiter.postgres.pgbouncer=true"));
        }
    }

    @Test
    @DisplayName("PostgreSQL paused behind PgBouncer (transaction mode): every call returns within 10 x its deadline as UNAVAILABLE, then the breaker opens and fail-closed refuses; resumed: ok again, counting in PostgreSQL")
    void pausedBehindPgBouncer() throws Exception {
        PostgresChain chain = chain(bouncer(PoolMode.TRANSACTION), "rl-pgbouncer-paused", PAUSED_DEADLINE);
        Limiter store = chain.storeLimiter;
        Bucket bucket = Bucket.of("paused", 1_000, Duration.ofSeconds(300), OutagePolicy.FAIL_CLOSED);
        for (int i = 1; i <= 3; i++) {
            assertThat(store.consume(bucket, "k").remaining()).isEqualTo(1_000 - i);
        }

        cluster.pause();
        for (int i = 0; i < 10; i++) {
            long start = System.nanoTime();
            Verdict verdict = store.consume(bucket, "k");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("call %d", i).isLessThan(BOUND);
            assertThat(verdict.outcome()).isEqualTo(Outcome.UNAVAILABLE);
        }
        for (int i = 0; i < 10 && !chain.breaker.isOpen(); i++) {
            long start = System.nanoTime();
            assertThat(chain.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.UNAVAILABLE);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("call %d through the chain", i)
                    .isLessThan(BOUND);
        }
        assertThat(chain.degraded()).isTrue();
        assertThat(chain.outages.failCloseds("paused")).isPositive();

        cluster.resume();
        await().atMost(Duration.ofSeconds(60)).until(() -> !chain.degraded());
        Verdict verdict = chain.limiter.consume(bucket, "k");
        assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
        // Statements that timed out while paused ran when the server resumed (a statement is never resent).
        assertThat(verdict.remaining()).isEqualTo(1_000 - count("paused"));
    }

    @Test
    @DisplayName("two sweepers through PgBouncer in transaction mode, 20 rounds of 500 ended rows: every round leaves the table empty, the rows are deleted once, and no advisory lock is left held")
    void twoSweepersThroughTransactionPooling() throws Exception {
        PgBouncer bouncer = bouncer(PoolMode.TRANSACTION);
        Sweepable first = chain(bouncer, "rl-pgbouncer-sweep-1").postgres;
        Sweepable second = chain(bouncer, "rl-pgbouncer-sweep-2").postgres;
        for (int round = 1; round <= 20; round++) {
            cluster.execute("INSERT INTO rate_limit_counters (bucket, key, ends_at, count) SELECT 'ended', "
                    + "'r" + round + "-' || g, now() - interval '1 minute', 1 FROM generate_series(1, 500) AS g");
            Sweepable[] sweepers = {first, second};
            List<Long> deleted = atOnce(2, new Callable<>() {
                private final java.util.concurrent.atomic.AtomicInteger next =
                        new java.util.concurrent.atomic.AtomicInteger();

                @Override
                public Long call() {
                    return sweepers[next.getAndIncrement()].sweep();
                }
            });
            assertThat(count("ended")).as("rows left after round %d (deleted %s)", round, deleted).isEqualTo(-1);
            assertThat(deleted.stream().mapToLong(Long::longValue).sum()).as("deleted in round %d", round)
                    .isEqualTo(500);
            assertThat(heldSweepLocks()).as("sweep locks held after round %d", round).isZero();
        }
    }

    private PgBouncer bouncer(PoolMode mode) {
        PgBouncer bouncer = PgBouncer.start(cluster.database(), cluster.port(), mode, 2);
        closing.add(bouncer);
        return bouncer;
    }

    /** A chain through {@code bouncer} with the {@link #UNHURRIED} deadline. */
    private PostgresChain chain(PgBouncer bouncer, String applicationName) {
        return chain(bouncer, applicationName, UNHURRIED);
    }

    private PostgresChain chain(PgBouncer bouncer, String applicationName, Duration deadline) {
        PostgresChain chain = new PostgresChain(PostgresChain.settings("jdbc:postgresql://127.0.0.1:" + bouncer.port()
                + "/" + cluster.database() + "?ApplicationName=" + applicationName, THREADS, true, deadline));
        closing.add(chain);
        return chain;
    }

    /** {@code count} threads run {@code task} at once; their results, rethrowing any failure. */
    private <T> List<T> atOnce(int count, Callable<T> task) throws Exception {
        if (threads == null) {
            threads = Executors.newFixedThreadPool(THREADS);
        }
        CyclicBarrier barrier = new CyclicBarrier(count);
        List<Future<T>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(threads.submit(() -> {
                barrier.await(30, TimeUnit.SECONDS);
                return task.call();
            }));
        }
        List<T> results = new ArrayList<>();
        for (Future<T> future : futures) {
            results.add(future.get(60, TimeUnit.SECONDS));
        }
        return results;
    }

    /** The stored count of a bucket's keys, summed; -1 when it has no row. Read on PostgreSQL directly. */
    private static long count(String bucket) throws SQLException {
        try (Connection connection = cluster.dataSource().getConnection();
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT coalesce(sum(count), -1) FROM rate_limit_counters "
                     + "WHERE bucket = '" + bucket + "'")) {
            row.next();
            return row.getLong(1);
        }
    }

    private static long heldSweepLocks() throws SQLException {
        try (Connection connection = cluster.dataSource().getConnection();
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                     + "AND classid = " + LOCK_SPACE)) {
            row.next();
            return row.getLong(1);
        }
    }
}
