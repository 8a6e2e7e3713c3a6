package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counts stay exact when many threads decide at once, as they do when waiting decisions share round trips
 * (docs/stores.md#batching): every store runs these cases with batching on and with it off. Each thread's decisions
 * go through the store's limiter as the decider hands them over, keys already hashed.
 */
public abstract class ExactnessUnderLoadContract {

    private final String run = UUID.randomUUID().toString().substring(0, 8);
    protected Limiter limiter;

    /** The store's limiter under test, built before each case. */
    protected abstract Limiter newLimiter() throws Exception;

    /** Releases what {@link #newLimiter()} built. */
    protected void closeLimiter() throws Exception {
    }

    @BeforeEach
    void createLimiter() throws Exception {
        limiter = newLimiter();
    }

    @AfterEach
    void close() throws Exception {
        closeLimiter();
    }

    private Bucket bucket(String name, long limit) {
        return Bucket.of(name + "-" + run, limit, Duration.ofMinutes(10)); // longer than any case runs
    }

    @Test
    @DisplayName("64 threads x 2 000 decisions over 100 keys admit exactly each key's limit")
    void manyThreadsOverManyKeysAdmitExactlyEachLimit() throws Exception {
        Bucket bucket = bucket("exact", 1_000);
        int keys = 100;
        AtomicLongArray admitted = new AtomicLongArray(keys);
        // 1 280 decisions a key, all 64 threads on every key: each key passes its limit while all of them race, and
        // the refusals past it catch any admitted too many. 10 000 a thread only added refusals (minutes on a store).
        concurrently(64, thread -> {
            long[] mine = new long[keys];
            for (int i = 0; i < 2_000; i++) {
                int key = (thread * 7 + i) % keys;
                Verdict verdict = limiter.consume(bucket, "key-" + key);
                assertThat(verdict.outcome()).isNotEqualTo(Outcome.UNAVAILABLE);
                if (verdict.isAllowed()) {
                    mine[key]++;
                }
            }
            for (int key = 0; key < keys; key++) {
                admitted.addAndGet(key, mine[key]);
            }
        });
        for (int key = 0; key < keys; key++) {
            assertThat(admitted.get(key)).as("key-%d", key).isEqualTo(1_000);
        }
    }

    @Test
    @DisplayName("200 concurrent first hits of one key count 1 to 200")
    void concurrentFirstHitsCountOneByOne() throws Exception {
        Bucket bucket = bucket("first-hits", 1_000);
        Set<Long> counts = java.util.concurrent.ConcurrentHashMap.newKeySet();
        concurrently(200, thread -> {
            Verdict verdict = limiter.consume(bucket, "fresh");
            assertThat(verdict.isAllowed()).isTrue();
            counts.add(verdict.limit() - verdict.remaining());
        });
        assertThat(new TreeSet<>(counts)).containsExactlyElementsOf(
                LongStream.rangeClosed(1, 200).boxed().collect(Collectors.toList()));
    }

    @Test
    @DisplayName("a reset amid concurrent decisions opens exactly one new window")
    void resetAmidConcurrentDecisions() throws Exception {
        Bucket bucket = bucket("reset", 50);
        for (int i = 0; i < 50; i++) {
            assertThat(limiter.consume(bucket, "k").isAllowed()).isTrue();
        }
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        AtomicBoolean resetDone = new AtomicBoolean();
        AtomicBoolean resetOver = new AtomicBoolean(); // done or failed: the deciders stop waiting for it
        concurrently(65, thread -> {
            if (thread == 64) { // resets once, while the others decide
                try {
                    while (attempts.get() < 1_000) {
                        Thread.onSpinWait();
                    }
                    limiter.reset(bucket, "k");
                    resetDone.set(true);
                } finally {
                    resetOver.set(true);
                }
                return;
            }
            // Each decides until it has made 200 attempts that began after the reset, however the threads are
            // scheduled: on a loaded machine the resetting thread may run only after the others made thousands.
            int afterReset = 0;
            boolean resetFailed = false;
            while (afterReset < 200 && !resetFailed && !Thread.currentThread().isInterrupted()) {
                resetFailed = resetOver.get() && !resetDone.get(); // its exception fails the case
                boolean began = resetDone.get();
                attempts.incrementAndGet();
                Verdict verdict = limiter.consume(bucket, "k");
                assertThat(verdict.outcome()).isNotEqualTo(Outcome.UNAVAILABLE);
                if (verdict.isAllowed()) {
                    admitted.incrementAndGet();
                }
                afterReset += began ? 1 : 0;
            }
        });
        assertThat(admitted.get()).isEqualTo(50);
    }

    /** A case's body for one of its threads, by the thread's number. */
    @FunctionalInterface
    protected interface Worker {
        void run(int thread) throws Exception;
    }

    /** Runs {@code worker} on {@code threads} threads started together, and rethrows the first failure. */
    protected static void concurrently(int threads, Worker worker) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Void>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Callable<Void> call = () -> {
                    start.await();
                    worker.run(thread);
                    return null;
                };
                results.add(pool.submit(call));
            }
            for (Future<Void> result : results) {
                result.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
