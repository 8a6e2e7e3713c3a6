package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eight threads calling a limiter in a loop while a test breaks and mends its store: half on a {@code fallback}
 * bucket, half on a {@code failOpen} one, each thread on a key of its own ({@code client-0} to {@code client-7}),
 * every verdict required to be ALLOWED (the buckets' limits are out of reach). Records the slowest call.
 */
public final class SteadyLoad implements AutoCloseable {

    private static final int THREADS = 8;

    private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong slowestNanos = new AtomicLong();
    private final List<Future<Long>> workers = new ArrayList<>();

    private SteadyLoad(Limiter limiter, Bucket fallback, Bucket failOpen) {
        for (int t = 0; t < THREADS; t++) {
            Bucket bucket = t % 2 == 0 ? fallback : failOpen;
            String key = "client-" + t;
            workers.add(pool.submit(() -> {
                long calls = 0;
                while (running.get()) {
                    long start = System.nanoTime();
                    Verdict verdict = limiter.consume(bucket, key);
                    slowestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                    assertThat(verdict.outcome()).as("%s %s", bucket.name(), verdict)
                            .isEqualTo(Verdict.Outcome.ALLOWED);
                    calls++;
                }
                return calls;
            }));
        }
    }

    /** Starts the threads. */
    public static SteadyLoad start(Limiter limiter, Bucket fallback, Bucket failOpen) {
        return new SteadyLoad(limiter, fallback, failOpen);
    }

    /**
     * Stops the threads and checks that each made calls and none failed (a worker's assertion error is rethrown).
     *
     * @return the slowest single call seen
     */
    public Duration stop() throws Exception {
        running.set(false);
        for (Future<Long> worker : workers) {
            assertThat(worker.get(30, TimeUnit.SECONDS)).isPositive();
        }
        return Duration.ofNanos(slowestNanos.get());
    }

    /** Stops the threads without checking them, for a test that failed before {@link #stop()}. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        pool.shutdownNow();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
}
