package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The second process of {@link PostgresConcurrencyTest}: a replica of its own (pool, limiter) hammering one key.
 * Prints {@code READY} once its connections are open, starts on a {@code GO} line on stdin, and prints
 * {@code RESULT} with its counts. The database is the parent's, handed over in {@code RATELIMITER_TEST_POSTGRES_*}.
 *
 * <p>Arguments: schema, bucket name, limit, window seconds, key, threads, attempts per thread.
 */
public final class PostgresConcurrencyWorker {

    private PostgresConcurrencyWorker() {
    }

    /** What one process saw. */
    record Counts(long allowed, long denied, long unavailable, long errors, long startMillis, long endMillis) {

        String line() {
            return "RESULT " + allowed + " " + denied + " " + unavailable + " " + errors + " " + startMillis + " "
                    + endMillis;
        }

        static Counts parse(String line) {
            String[] parts = line.split(" ");
            if (parts.length != 7 || !parts[0].equals("RESULT")) {
                throw new IllegalArgumentException("not a RESULT line: " + line);
            }
            return new Counts(Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]),
                    Long.parseLong(parts[4]), Long.parseLong(parts[5]), Long.parseLong(parts[6]));
        }
    }

    public static void main(String[] args) throws Exception {
        String schema = args[0];
        Bucket bucket = Bucket.of(args[1], Long.parseLong(args[2]), Duration.ofSeconds(Long.parseLong(args[3])));
        String key = args[4];
        int threads = Integer.parseInt(args[5]);
        int attempts = Integer.parseInt(args[6]);
        try (HikariDataSource pool = PostgresTarget.pool(schema, threads)) {
            openAll(pool, threads);
            BackendMonitor monitor = new BackendMonitor("postgres", InstantSource.system(),
                    RateLimiterMetrics.NONE);
            Limiter limiter = limiter(pool, threads, monitor);
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService executor = Executors.newFixedThreadPool(threads);
            try {
                List<Future<long[]>> work = submit(executor, limiter, bucket, key, threads, attempts, go);
                System.out.println("READY");
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line = in.readLine();
                if (!"GO".equals(line)) {
                    throw new IllegalStateException("expected GO, read " + line);
                }
                long start = System.currentTimeMillis();
                go.countDown();
                Counts counts = collect(work, monitor, start);
                System.out.println(counts.line());
                System.out.flush();
            } finally {
                executor.shutdownNow();
            }
        }
        System.exit(0);
    }

    /** The bare limiter as a replica would run it: deadline and bulkhead generous enough that nothing times out. */
    static Limiter limiter(javax.sql.DataSource pool, int permits, BackendMonitor monitor) {
        return new StoreLimiter(new PostgresStore(pool, PostgresChain.TABLE, Duration.ofSeconds(30), permits, Optional.empty(),
                ConnectionEviction.ABORT), monitor, RateLimiterMetrics.NONE);
    }

    /** Opens {@code connections} connections at once, so that the pool holds them before the start. */
    static void openAll(javax.sql.DataSource pool, int connections) throws SQLException {
        List<Connection> open = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                open.add(pool.getConnection());
            }
        } finally {
            for (Connection connection : open) {
                connection.close();
            }
        }
    }

    /** {@code threads} tasks, each waiting for {@code go} and then making {@code attempts} attempts. */
    static List<Future<long[]>> submit(ExecutorService executor, Limiter limiter, Bucket bucket, String key,
                                       int threads, int attempts, CountDownLatch go) {
        List<Future<long[]>> work = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            work.add(executor.submit(() -> {
                long[] outcomes = new long[Verdict.Outcome.values().length];
                if (!go.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no start signal");
                }
                for (int i = 0; i < attempts; i++) {
                    outcomes[limiter.consume(bucket, key).outcome().ordinal()]++;
                }
                return outcomes;
            }));
        }
        return work;
    }

    static Counts collect(List<Future<long[]>> work, BackendMonitor monitor, long startMillis) throws Exception {
        long[] total = new long[Verdict.Outcome.values().length];
        for (Future<long[]> future : work) {
            long[] outcomes = future.get(120, TimeUnit.SECONDS);
            for (int i = 0; i < total.length; i++) {
                total[i] += outcomes[i];
            }
        }
        return new Counts(total[Verdict.Outcome.ALLOWED.ordinal()], total[Verdict.Outcome.DENIED.ordinal()],
                total[Verdict.Outcome.UNAVAILABLE.ordinal()], monitor.errors(), startMillis,
                System.currentTimeMillis());
    }
}
