package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.postgres.PostgresConcurrencyWorker.Counts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Concurrent attempts on one key against the bare PostgreSQL limiter: in one process, and from two processes (JVMs)
 * at once, on a database of the test JVM's own cluster ({@link PostgresCluster#database}): its 50 + 16 + 16
 * connections on the shared server, which allows 100 to every build on the machine, ended in "too many clients". The deadline (30 s) and bulkhead are generous, so every attempt reaches the database and none may be
 * answered {@code UNAVAILABLE}: the row lock of the one {@code INSERT ... ON CONFLICT ... DO UPDATE} must
 * serialise them without unique violations (23505) or deadlocks (40P01), which would reach the monitor.
 */
class PostgresConcurrencyTest {

    /** Plenty to contend, within the cluster's own connection limit. */
    private static final int CONNECTIONS = 50;
    private static final int THREADS = 200;
    private static final long LIMIT = 100;

    private static PostgresCluster cluster;
    private static HikariDataSource pool;

    private ExecutorService executor;
    private Process worker;
    private Path workerErrors;

    @BeforeAll
    static void migrate() throws Exception {
        cluster = PostgresCluster.database("concurrency");
        pool = pool(CONNECTIONS);
        PostgresConcurrencyWorker.openAll(pool, CONNECTIONS);
        assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isEqualTo(CONNECTIONS);
    }

    @AfterAll
    static void drop() {
        pool.close();
        cluster.close();
    }

    @AfterEach
    void stop() throws Exception {
        if (executor != null) {
            executor.shutdownNow();
            assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        if (worker != null) {
            worker.destroyForcibly();
            assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        if (workerErrors != null) {
            Files.deleteIfExists(workerErrors);
        }
    }

    @RepeatedTest(5)
    @DisplayName("200 first attempts on a new key at once, limit 100: exactly 100 allowed with remaining 99..0 once each, 100 denied, none unavailable, no database error, and the row counts 200")
    void firstAttemptsAtOnce(RepetitionInfo repetition) throws Exception {
        BackendMonitor monitor = new BackendMonitor("postgres", InstantSource.system(), RateLimiterMetrics.NONE);
        Limiter limiter = PostgresConcurrencyWorker.limiter(pool, THREADS, monitor);
        Bucket bucket = Bucket.of("burst", LIMIT, Duration.ofSeconds(300));
        String key = "new-key-" + repetition.getCurrentRepetition();
        executor = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier barrier = new CyclicBarrier(THREADS);
        List<Future<Verdict>> attempts = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            attempts.add(executor.submit(() -> {
                barrier.await(60, TimeUnit.SECONDS);
                return limiter.consume(bucket, key);
            }));
        }
        List<Verdict> verdicts = new ArrayList<>();
        for (Future<Verdict> attempt : attempts) {
            verdicts.add(attempt.get(120, TimeUnit.SECONDS));
        }

        Map<Outcome, Long> outcomes = verdicts.stream()
                .collect(Collectors.groupingBy(Verdict::outcome, Collectors.counting()));
        assertThat(monitor.errors()).as("database errors (unique violations, deadlocks, timeouts)").isZero();
        assertThat(outcomes).as("outcomes").containsOnlyKeys(Outcome.ALLOWED, Outcome.DENIED)
                .containsEntry(Outcome.ALLOWED, LIMIT).containsEntry(Outcome.DENIED, THREADS - LIMIT);
        // count = limit - remaining for an allowed attempt: 1..100 each once. A refused attempt counts nothing
        // (docs/guide.md#fixed-windows), so the row's final count is the limit.
        assertThat(verdicts.stream().filter(Verdict::isAllowed).map(Verdict::remaining))
                .as("remaining of the allowed attempts")
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, LIMIT).boxed().toList());
        // resetAfter is ends_at minus the statement's own statement_timestamp(). A statement that started a few
        // microseconds before the one that opened the window, and then waited for the row, sees slightly more than
        // the window left (observed: PT5M0.000062S): so the window plus a generous second.
        assertThat(verdicts).allSatisfy(verdict -> {
            assertThat(verdict.limit()).isEqualTo(LIMIT);
            assertThat(verdict.resetAfter()).isPositive().isLessThanOrEqualTo(bucket.window().plusSeconds(1));
        });
        assertThat(PostgresChain.storedCount(pool, bucket.name(), key)).as("the row's count: refusals count nothing")
                .isEqualTo(LIMIT);
    }

    @Test
    @DisplayName("two processes x 16 threads x 100 attempts on one key, limit 2000: exactly 2000 admitted in total, each process at least 400, none unavailable, no database error")
    void twoProcesses() throws Exception {
        int threads = 16;
        int attempts = 100;
        // Above what one process attempts (1 600), so each must admit some (at least 2 000 - 1 600): a process that
        // reaches the store first can no longer take the whole limit, which with 500 it did once its batches got
        // faster (issue 54), leaving the other none.
        long limit = 2_000;
        Bucket bucket = Bucket.of("replicas", limit, Duration.ofSeconds(300));
        String key = "shared-key";

        BlockingQueue<String> lines = startWorker(bucket, key, threads, attempts);
        await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("READY") || !worker.isAlive());
        assertThat(lines).as("worker output; its stderr: %s", workerErrors()).contains("READY");

        try (HikariDataSource own = pool(threads)) {
            PostgresConcurrencyWorker.openAll(own, threads);
            BackendMonitor monitor = new BackendMonitor("postgres", InstantSource.system(),
                    RateLimiterMetrics.NONE);
            Limiter limiter = PostgresConcurrencyWorker.limiter(own, threads, monitor);
            executor = Executors.newFixedThreadPool(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<long[]>> work = PostgresConcurrencyWorker.submit(executor, limiter, bucket, key, threads,
                    attempts, go);
            OutputStream toWorker = worker.getOutputStream();
            toWorker.write("GO\n".getBytes(StandardCharsets.US_ASCII));
            toWorker.flush();
            long start = System.currentTimeMillis();
            go.countDown();
            Counts here = PostgresConcurrencyWorker.collect(work, monitor, start);

            await().atMost(Duration.ofSeconds(120))
                    .until(() -> lines.stream().anyMatch(line -> line.startsWith("RESULT")) || !worker.isAlive());
            Counts there = lines.stream().filter(line -> line.startsWith("RESULT")).findFirst().map(Counts::parse)
                    .orElseThrow(() -> new AssertionError("no RESULT from the worker; its stderr: " + workerErrors()));
            assertThat(worker.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(worker.exitValue()).isZero();

            assertThat(here.unavailable() + there.unavailable()).as("unavailable").isZero();
            assertThat(here.errors() + there.errors()).as("database errors").isZero();
            assertThat(here.allowed() + there.allowed()).as("admitted, both processes").isEqualTo(limit);
            long leastEach = limit - (long) threads * attempts;
            assertThat(here.allowed()).as("admitted here").isGreaterThanOrEqualTo(leastEach);
            assertThat(there.allowed()).as("admitted in the other process").isGreaterThanOrEqualTo(leastEach);
            assertThat(here.allowed() + here.denied()).isEqualTo((long) threads * attempts);
            assertThat(there.allowed() + there.denied()).isEqualTo((long) threads * attempts);
            assertThat(here.startMillis()).as("the processes ran at the same time: %s and %s", here, there)
                    .isLessThan(there.endMillis());
            assertThat(there.startMillis()).as("the processes ran at the same time: %s and %s", here, there)
                    .isLessThan(here.endMillis());
            assertThat(PostgresChain.storedCount(pool, bucket.name(), key))
                    .as("the row's count: refusals count nothing").isEqualTo(limit);
        }
    }

    private BlockingQueue<String> startWorker(Bucket bucket, String key, int threads, int attempts)
            throws IOException {
        workerErrors = Files.createTempFile("postgres-worker", ".err");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                PostgresConcurrencyWorker.class.getName(), "public", bucket.name(), String.valueOf(bucket.limit()),
                String.valueOf(bucket.windowSeconds()), key, String.valueOf(threads), String.valueOf(attempts))
                .redirectError(workerErrors.toFile());
        builder.environment().put("RATELIMITER_TEST_POSTGRES_URL", cluster.url());
        builder.environment().put("RATELIMITER_TEST_POSTGRES_USER", "postgres");
        builder.environment().put("RATELIMITER_TEST_POSTGRES_PASSWORD", "");
        worker = builder.start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("READ FAILED " + e);
            }
        }, "postgres-worker-output");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** A HikariCP pool of {@code size} connections on the cluster's database, as an application's would be. */
    private static HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(cluster.url());
        config.setUsername("postgres");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(30_000);
        return new HikariDataSource(config);
    }

    private String workerErrors() {
        try {
            return Files.readString(workerErrors);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
