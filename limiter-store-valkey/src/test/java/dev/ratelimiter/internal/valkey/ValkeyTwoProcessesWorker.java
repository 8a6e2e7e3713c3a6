package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * The second process of {@link ValkeyTwoProcessesTest}: hammers one key of one bucket through the bare store
 * ({@link ValkeyStore} behind {@link StoreLimiter}) from many threads and prints what it got.
 *
 * <p>Arguments: {@code <url> <bucket> <limit> <window seconds> <key> <threads> <attempts per thread>}. Protocol
 * on standard output: {@code READY} once connected with its threads waiting; it then waits for a line on
 * standard input, starts all threads at once, and prints
 * {@code RESULT allowed=<n> denied=<n> unavailable=<n> errors=<n> start=<epoch ms> end=<epoch ms>}.
 */
public final class ValkeyTwoProcessesWorker {

    private ValkeyTwoProcessesWorker() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        Bucket bucket = Bucket.of(args[1], Long.parseLong(args[2]), Duration.ofSeconds(Long.parseLong(args[3])));
        String key = args[4];
        int threads = Integer.parseInt(args[5]);
        int attempts = Integer.parseInt(args[6]);

        ValkeyClient jedis = ValkeyClientFactory.create(settings(url));
        BackendMonitor monitor = new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE);
        StoreLimiter limiter = new StoreLimiter(new ValkeyStore(() -> jedis, "rl-test:"), monitor, RateLimiterMetrics.NONE);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            // Connected and the script cached before the start, on a key of its own.
            limiter.consume(Bucket.of(bucket.name() + "-warm", 1, Duration.ofSeconds(1)), "worker");

            Outcomes outcomes = new Outcomes();
            CountDownLatch ready = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    for (int i = 0; i < attempts; i++) {
                        outcomes.add(limiter.consume(bucket, key));
                    }
                    return null;
                }));
            }
            ready.await();
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (in.readLine() == null) {
                throw new IllegalStateException("standard input closed before the start");
            }
            long start = System.currentTimeMillis();
            go.countDown();
            for (Future<?> worker : workers) {
                worker.get(2, TimeUnit.MINUTES);
            }
            long end = System.currentTimeMillis();
            System.out.println("RESULT allowed=" + outcomes.allowed + " denied=" + outcomes.denied
                    + " unavailable=" + outcomes.unavailable + " errors=" + monitor.errors()
                    + " start=" + start + " end=" + end);
            System.out.flush();
        } finally {
            pool.shutdownNow();
            jedis.close();
        }
    }

    static ValkeySettings settings(String url) {
        return new ValkeySettings(ValkeySettings.Mode.STANDALONE, url, List.of(), Optional.empty(), Optional.empty(),
                Optional.empty(), Duration.ofSeconds(2), "rl-test:", 32, Optional.empty(), Optional.empty());
    }

    /** Verdicts by outcome, from many threads. */
    static final class Outcomes {
        final AtomicLong allowed = new AtomicLong();
        final AtomicLong denied = new AtomicLong();
        final AtomicLong unavailable = new AtomicLong();

        void add(Verdict verdict) {
            switch (verdict.outcome()) {
                case ALLOWED -> allowed.incrementAndGet();
                case DENIED -> denied.incrementAndGet();
                default -> unavailable.incrementAndGet();
            }
        }
    }
}
