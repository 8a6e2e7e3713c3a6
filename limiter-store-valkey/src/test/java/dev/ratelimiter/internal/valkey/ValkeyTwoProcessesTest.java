package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two JVMs share one key: this one and a {@link ValkeyTwoProcessesWorker} started with the test's class path,
 * each with 16 threads on the bare store, started together. Their admitted attempts add up to the limit exactly.
 */
class ValkeyTwoProcessesTest {

    private static final int LIMIT = 1_000;
    private static final int THREADS = 16;
    private static final int ATTEMPTS = 200;
    private static final Pattern RESULT = Pattern.compile(
            "RESULT allowed=(\\d+) denied=(\\d+) unavailable=(\\d+) errors=(\\d+) start=(\\d+) end=(\\d+)");

    private RedisServer server;
    private Process worker;
    private final List<String> workerOutput = new CopyOnWriteArrayList<>();
    private ValkeyClient jedis;
    private ExecutorService threads;

    @BeforeEach
    void start() {
        server = RedisServer.start();
    }

    @AfterEach
    void stop() {
        if (threads != null) {
            threads.shutdownNow();
        }
        if (worker != null && worker.isAlive()) {
            worker.destroyForcibly();
        }
        if (jedis != null) {
            jedis.close();
        }
        server.close();
    }

    @Test
    @DisplayName("two JVMs x 16 threads x 200 attempts on one key, overlapping: exactly the limit (1 000) admitted in all, none UNAVAILABLE, the admitted ones counted once, the refused ones not at all")
    void twoProcessesAdmitExactlyTheLimit() throws Exception {
        Bucket bucket = Bucket.of("two-processes", LIMIT, Duration.ofSeconds(120));
        worker = startWorker(bucket, "hot");

        jedis = ValkeyClientFactory.create(ValkeyTwoProcessesWorker.settings(server.url()));
        BackendMonitor monitor = new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE);
        StoreLimiter limiter = new StoreLimiter(new ValkeyStore(() -> jedis, "rl-test:"), monitor, RateLimiterMetrics.NONE);
        limiter.consume(Bucket.of("two-processes-warm", 1, Duration.ofSeconds(1)), "test"); // connect, cache script
        ValkeyTwoProcessesWorker.Outcomes outcomes = new ValkeyTwoProcessesWorker.Outcomes();
        threads = Executors.newFixedThreadPool(THREADS);
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            futures.add(threads.submit(() -> {
                ready.countDown();
                go.await();
                for (int i = 0; i < ATTEMPTS; i++) {
                    outcomes.add(limiter.consume(bucket, "hot"));
                }
                return null;
            }));
        }
        assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
        await("the worker is ready").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    if (!worker.isAlive() && !workerOutput.contains("READY")) {
                        throw new AssertionError("the worker exited: " + workerOutput);
                    }
                    return workerOutput.contains("READY");
                });

        OutputStream toWorker = worker.getOutputStream();
        toWorker.write("GO\n".getBytes(StandardCharsets.US_ASCII));
        toWorker.flush();
        long start = System.currentTimeMillis();
        go.countDown();
        for (Future<?> future : futures) {
            future.get(2, TimeUnit.MINUTES);
        }
        long end = System.currentTimeMillis();
        assertThat(worker.waitFor(2, TimeUnit.MINUTES)).as("worker finished").isTrue();
        assertThat(worker.exitValue()).as("worker exit code; output: %s", workerOutput).isZero();

        Matcher result = workerOutput.stream().map(RESULT::matcher).filter(Matcher::matches).findFirst()
                .orElseThrow(() -> new AssertionError("no RESULT line from the worker: " + workerOutput));
        long workerAllowed = Long.parseLong(result.group(1));
        long workerDenied = Long.parseLong(result.group(2));
        long workerStart = Long.parseLong(result.group(5));
        long workerEnd = Long.parseLong(result.group(6));
        Map<String, Long> summary = new TreeMap<>(Map.of("allowed here", outcomes.allowed.get(),
                "allowed there", workerAllowed, "start here", start, "end here", end, "start there", workerStart,
                "end there", workerEnd));

        assertThat(workerStart).as("the runs overlap %s", summary).isLessThan(end);
        assertThat(start).as("the runs overlap %s", summary).isLessThan(workerEnd);
        assertThat(Long.parseLong(result.group(3))).as("UNAVAILABLE in the worker").isZero();
        assertThat(Long.parseLong(result.group(4))).as("store errors in the worker").isZero();
        assertThat(outcomes.unavailable.get()).as("UNAVAILABLE here").isZero();
        assertThat(monitor.errors()).as("store errors here").isZero();
        assertThat(outcomes.allowed.get() + workerAllowed).as("admitted in all %s", summary).isEqualTo(LIMIT);
        assertThat(outcomes.allowed.get() + outcomes.denied.get() + workerAllowed + workerDenied)
                .isEqualTo(2L * THREADS * ATTEMPTS);
        try (Jedis direct = new Jedis("127.0.0.1", server.port())) {
            assertThat(direct.get("rl-test:{two-processes:hot}"))
                    .as("every admitted attempt counted once, the refused ones not at all")
                    .isEqualTo(String.valueOf(LIMIT));
        }
    }

    private Process startWorker(Bucket bucket, String key) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                ValkeyTwoProcessesWorker.class.getName(), server.url(), bucket.name(),
                String.valueOf(bucket.limit()), String.valueOf(bucket.windowSeconds()), key,
                String.valueOf(THREADS), String.valueOf(ATTEMPTS))
                .redirectErrorStream(true)
                .start();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    workerOutput.add(line);
                }
            } catch (IOException e) {
                workerOutput.add("(output unreadable: " + e + ")");
            }
        }, "two-processes-worker-output");
        reader.setDaemon(true);
        reader.start();
        return process;
    }
}
