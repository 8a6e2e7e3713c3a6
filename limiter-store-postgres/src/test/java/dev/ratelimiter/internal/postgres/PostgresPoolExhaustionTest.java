package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The library's own pool of 2 connections (so a bulkhead of 2) with the 100 ms deadline, while the database is slow:
 * another session holds the counter rows' locks in an open transaction, so every statement waits for them. 50
 * threads call at once: each call returns within a bound, the excess is answered {@code UNAVAILABLE} (and then the
 * outage policy decides), the sessions stay near the pool's size, and no thread is left behind.
 */
class PostgresPoolExhaustionTest {

    private static final int POOL = 2;
    private static final int CALLERS = 50;
    private static final Duration BOUND = Duration.ofSeconds(1); // 10 x the 100 ms deadline

    private static String schema;

    private final String applicationName = "rl-exhaustion-" + UUID.randomUUID().toString().substring(0, 8);
    private final ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();
    private PostgresChain chain;
    private Connection locker;
    private ExecutorService callers;

    @BeforeAll
    static void migrate() {
        schema = PostgresTarget.newSchema("exhaustion");
    }

    @AfterAll
    static void drop() {
        PostgresTarget.dropSchema(schema);
    }

    @BeforeEach
    void start() throws SQLException {
        chain = new PostgresChain(PostgresChain.settings(
                PostgresChain.url(schema, applicationName, Optional.empty()), POOL));
        locker = PostgresTarget.dataSource(schema).getConnection();
    }

    @AfterEach
    void stop() throws Exception {
        if (callers != null) {
            callers.shutdownNow();
            assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        if (locker != null) {
            locker.close(); // rolls back, releasing the row locks
        }
        chain.close();
    }

    @ParameterizedTest(name = "batching {0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("bare limiter, pool of 2, rows locked, 50 callers at once: every call returns within 1 s as UNAVAILABLE, each failed round trip reported once (batching off: one per call; on: the waiting calls share a few), sessions stay near 2, and the callers' threads all end; unlocked: allowed again")
    void bareLimiter(boolean batching) throws Exception {
        if (!batching) {
            chain.close();
            PostgresSettings settings = PostgresChain.settings(PostgresChain.url(schema, applicationName,
                    Optional.empty()), POOL);
            chain = new PostgresChain(new PostgresSettings(settings.dataSource(), settings.url(), settings.user(),
                    settings.password(), settings.table(), settings.timeout(), settings.sweepInterval(),
                    settings.poolSize(), settings.pgbouncer(), false));
        }
        Limiter limiter = chain.storeLimiter;
        Bucket bucket = Bucket.of(batching ? "bare-batched" : "bare", 1_000, Duration.ofSeconds(300));
        assertThat(limiter.consume(bucket, "hot").remaining()).isEqualTo(999);
        int baseline = threadBean.getThreadCount();

        lockRows(bucket, "hot");
        List<Call> calls = callAtOnce(limiter, i -> bucket, "hot");

        assertThat(calls).allSatisfy(call -> {
            assertThat(call.elapsed()).as("a call's duration").isLessThan(BOUND);
            assertThat(call.verdict().outcome()).isEqualTo(Outcome.UNAVAILABLE);
        });
        if (batching) {
            assertThat(chain.monitor.errors()).as("failed round trips reported").isBetween(1L, CALLERS - 1L);
        } else {
            assertThat(chain.monitor.errors()).as("failures reported").isEqualTo(CALLERS);
        }
        threadsEnd(baseline);

        locker.rollback();
        assertThat(limiter.consume(bucket, "hot").remaining()).as("the count the locked statements left")
                .isEqualTo(998);
    }

    @Test
    @DisplayName("through the chain, pool of 2, rows locked, 50 callers at once: every call returns within 1 s, fallbacks and fail-closed refusals counted for every call, at least the breaker's threshold of failures reach the store and open it, and it keeps the next calls away; unlocked: ok again")
    void throughTheChain() throws Exception {
        Bucket fallback = Bucket.of("chain-fallback", 1_000, Duration.ofSeconds(300));
        Bucket failClosed = Bucket.of("chain-closed", 1_000, Duration.ofSeconds(300), OutagePolicy.FAIL_CLOSED);
        assertThat(chain.limiter.consume(fallback, "hot").isAllowed()).isTrue();
        assertThat(chain.limiter.consume(failClosed, "hot").isAllowed()).isTrue();

        lockRows(fallback, "hot");
        lockRows(failClosed, "hot");
        List<Call> calls = callAtOnce(chain.limiter, i -> i % 2 == 0 ? fallback : failClosed, "hot");

        assertThat(calls).allSatisfy(call -> assertThat(call.elapsed()).as("a call's duration").isLessThan(BOUND));
        assertThat(calls.stream().filter(call -> call.bucket() == fallback))
                .allSatisfy(call -> assertThat(call.verdict().outcome()).isEqualTo(Outcome.ALLOWED));
        assertThat(calls.stream().filter(call -> call.bucket() == failClosed))
                .allSatisfy(call -> assertThat(call.verdict().outcome()).isEqualTo(Outcome.UNAVAILABLE));
        assertThat(chain.outages.fallbacks("chain-fallback")).as("fallbacks").isEqualTo(CALLERS / 2);
        assertThat(chain.outages.failCloseds("chain-closed")).as("fail-closed refusals").isEqualTo(CALLERS / 2);
        // The callers that entered while the breaker was closed reached the store, and their failures opened it;
        // on a loaded machine some callers pass the barrier only after that, and the breaker keeps them away.
        long reached = chain.store.calls();
        assertThat(reached).as("calls that reached the store")
                .isBetween(2L + BreakerSettings.DEFAULTS.failureThreshold(), 2L + CALLERS);
        assertThat(chain.degraded()).isTrue();
        assertThat(chain.breaker.isOpen()).isTrue();
        assertThat(chain.limiter.consume(failClosed, "hot").outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(chain.store.calls()).as("calls that reached the store once open").isEqualTo(reached);
        callers.shutdown();
        assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).as("callers' threads ended").isTrue();

        locker.rollback();
        await().atMost(Duration.ofSeconds(60)).until(() -> !chain.degraded());
        assertThat(chain.limiter.consume(fallback, "hot").remaining()).isEqualTo(998);
    }

    @Test
    @DisplayName("a server's pool of 2 (the application's, which waits 30 s for a connection) held whole by the application's own work, 50 callers at once: every call returns within 1 s as UNAVAILABLE, the callers' threads all end and at most 2 threads wait for the pool; released: allowed again")
    void serverPoolHeldByTheApplication() throws Exception {
        Bucket bucket = Bucket.of("server-pool", 1_000, Duration.ofSeconds(300));
        try (HikariDataSource serverPool = PostgresTarget.pool(schema, POOL);
             PostgresChain onServerPool = new PostgresChain(PostgresChain.settings(
                     PostgresChain.url(schema, applicationName, Optional.empty()), POOL), serverPool)) {
            Limiter limiter = onServerPool.storeLimiter;
            assertThat(limiter.consume(bucket, "k").remaining()).isEqualTo(999);
            List<Connection> held = new ArrayList<>();
            for (int i = 0; i < POOL; i++) {
                held.add(serverPool.getConnection());
            }

            List<Call> calls = callAtOnce(limiter, i -> bucket, "k");

            assertThat(calls).allSatisfy(call -> {
                assertThat(call.elapsed()).as("a call's duration").isLessThan(BOUND);
                assertThat(call.verdict().outcome()).isEqualTo(Outcome.UNAVAILABLE);
            });
            callers.shutdown();
            assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).as("callers' threads ended").isTrue();
            assertThat(Arrays.stream(threadBean.dumpAllThreads(false, false)).map(ThreadInfo::getThreadName)
                    .filter(name -> name.startsWith("ratelimiter-postgres-wait-")))
                    .as("threads left waiting for the pool").hasSizeLessThanOrEqualTo(POOL);
            for (Connection connection : held) {
                connection.close();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> limiter.consume(bucket, "k").isAllowed());
        }
    }

    private record Call(Bucket bucket, Verdict verdict, Duration elapsed) {
    }

    /** Opens a transaction on the locker's connection (if none is open) and locks the key's row in it. */
    private void lockRows(Bucket bucket, String key) throws SQLException {
        locker.setAutoCommit(false);
        try (PreparedStatement statement = locker.prepareStatement(
                "SELECT count FROM " + PostgresChain.TABLE + " WHERE bucket = ? AND key = ? FOR UPDATE")) {
            statement.setString(1, bucket.name());
            statement.setString(2, key);
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).as("row to lock").isTrue();
            }
        }
    }

    /**
     * {@link #CALLERS} threads call at once; meanwhile the sessions of the limiter's pool are counted in
     * pg_stat_activity, and must stay near the pool's size.
     */
    private List<Call> callAtOnce(Limiter limiter, java.util.function.IntFunction<Bucket> buckets, String key)
            throws Exception {
        AtomicInteger number = new AtomicInteger();
        callers = Executors.newFixedThreadPool(CALLERS, runnable -> {
            Thread thread = new Thread(runnable, "exhaustion-caller-" + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        CyclicBarrier barrier = new CyclicBarrier(CALLERS);
        List<Future<Call>> futures = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            Bucket bucket = buckets.apply(i);
            futures.add(callers.submit(() -> {
                barrier.await(30, TimeUnit.SECONDS);
                long start = System.nanoTime();
                Verdict verdict = limiter.consume(bucket, key);
                return new Call(bucket, verdict, Duration.ofNanos(System.nanoTime() - start));
            }));
        }
        int mostSessions = 0;
        while (!futures.stream().allMatch(Future::isDone)) {
            mostSessions = Math.max(mostSessions, sessions());
        }
        List<Call> calls = new ArrayList<>();
        for (Future<Call> future : futures) {
            calls.add(future.get(30, TimeUnit.SECONDS)); // rethrows any exception of a caller
        }
        // The 100 ms network timeout usually fires just before the server's 100 ms statement timeout, so the pool
        // drops the connection and opens a new one while the old session may linger for a moment: allow for that,
        // but no more (50 callers must never mean 50 sessions).
        assertThat(mostSessions).as("sessions of the limiter's pool").isLessThanOrEqualTo(2 * POOL);
        return calls;
    }

    private int sessions() throws SQLException {
        try (Connection connection = PostgresTarget.dataSource(schema).getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?")) {
            statement.setString(1, applicationName);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }

    /** The callers' threads end, and the process's live threads come back to what they were before. */
    private void threadsEnd(int baseline) throws InterruptedException {
        callers.shutdown();
        assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).as("callers' threads ended").isTrue();
        await().atMost(Duration.ofSeconds(30)).pollInSameThread().untilAsserted(() ->
                assertThat(threadBean.getThreadCount()).as("live threads (baseline %d): %s", baseline, threadNames())
                        .isLessThanOrEqualTo(baseline));
    }

    private String threadNames() {
        return Arrays.stream(threadBean.dumpAllThreads(false, false)).map(ThreadInfo::getThreadName).sorted()
                .collect(Collectors.joining(", "));
    }
}
