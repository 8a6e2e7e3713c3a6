package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreBatching;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The calls waiting for a store share round trips (docs/stores.md#batching): a lone call goes at once and alone;
 * calls that arrive while the round trips are in flight go together in the next; failure stays per call and is one
 * failure of the breaker; a call waits no longer than the store's wait for a connection.
 */
class RoundTripBatcherTest {

    private static final Bucket BUCKET = Bucket.of("batched", 1_000, Duration.ofMinutes(1));

    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final GatedStore store = new GatedStore(new StoreBatching(8, 1, Duration.ofSeconds(30)));
    private final BackendMonitor monitor = new BackendMonitor("test", InstantSource.system(), RateLimiterMetrics.NONE);

    @AfterEach
    void stop() {
        store.open();
        callers.shutdownNow();
    }

    @Test
    void aLoneCallGoesAtOnceAlone() {
        StoreLimiter limiter = new StoreLimiter(store, monitor, RateLimiterMetrics.NONE);
        store.open();

        Verdict verdict = limiter.consume(BUCKET, "k");

        assertThat(verdict.isAllowed()).isTrue();
        assertThat(store.alone.get()).isEqualTo(1);
        assertThat(store.batches).isEmpty();
    }

    @Test
    void callsArrivingDuringARoundTripShareTheNext() throws Exception {
        StoreLimiter limiter = new StoreLimiter(store, monitor, RateLimiterMetrics.NONE);
        Future<Verdict> first = callers.submit(() -> limiter.consume(BUCKET, "first"));
        await().until(() -> store.waiting.get() == 1); // the one round trip in flight is held
        List<Future<Verdict>> queued = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String key = "queued-" + i;
            queued.add(callers.submit(() -> limiter.consume(BUCKET, key)));
        }
        await().until(() -> queuedCalls() == 5);

        store.open();

        assertThat(first.get(10, TimeUnit.SECONDS).isAllowed()).isTrue();
        for (Future<Verdict> call : queued) {
            assertThat(call.get(10, TimeUnit.SECONDS).isAllowed()).isTrue();
        }
        assertThat(store.alone.get()).isEqualTo(1);
        assertThat(store.batches).containsExactly(5);
    }

    @Test
    void aRoundTripCarriesAtMostTheBound() throws Exception {
        StoreLimiter limiter = new StoreLimiter(store, monitor, RateLimiterMetrics.NONE);
        Future<Verdict> first = callers.submit(() -> limiter.consume(BUCKET, "first"));
        await().until(() -> store.waiting.get() == 1);
        List<Future<Verdict>> queued = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String key = "queued-" + i;
            queued.add(callers.submit(() -> limiter.consume(BUCKET, key)));
        }
        await().until(() -> queuedCalls() == 20);

        store.open();

        first.get(10, TimeUnit.SECONDS);
        for (Future<Verdict> call : queued) {
            assertThat(call.get(10, TimeUnit.SECONDS).isAllowed()).isTrue();
        }
        assertThat(store.batches).allSatisfy(size -> assertThat(size).isBetween(2, 8));
        assertThat(store.batches.stream().mapToInt(Integer::intValue).sum() + store.alone.get() - 1).isEqualTo(20);
    }

    @Test
    void aFailedRoundTripFailsEachCallAndIsOneFailureOfTheBreaker() throws Exception {
        StoreLimiter limiter = new StoreLimiter(store, monitor, RateLimiterMetrics.NONE);
        CircuitBreakerLimiter breaker = new CircuitBreakerLimiter(limiter, store::probe, monitor,
                InstantSource.system(), new BreakerSettings(3, Duration.ofSeconds(30), Duration.ofSeconds(60), 1));
        try {
            Future<Verdict> first = callers.submit(() -> breaker.consume(BUCKET, "first"));
            await().until(() -> store.waiting.get() == 1);
            List<Future<Verdict>> queued = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String key = "queued-" + i;
                queued.add(callers.submit(() -> breaker.consume(BUCKET, key)));
            }
            await().until(() -> queuedCalls() == 6);
            store.failing = true;

            store.open();

            assertThat(first.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Verdict.Outcome.UNAVAILABLE);
            for (Future<Verdict> call : queued) {
                assertThat(call.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Verdict.Outcome.UNAVAILABLE);
            }
            // two round trips failed (the lone first call's and the six queued calls'): below the threshold of 3
            assertThat(store.alone.get() + store.batches.size()).isEqualTo(2);
            assertThat(breaker.isOpen()).isFalse();
            assertThat(monitor.errors()).isEqualTo(2);
        } finally {
            breaker.close();
        }
    }

    @Test
    void aCallStillWaitingAfterTheStoresWaitFailsAndCountsNothing() throws Exception {
        GatedStore slow = new GatedStore(new StoreBatching(8, 1, Duration.ofMillis(200)));
        StoreLimiter limiter = new StoreLimiter(slow, monitor, RateLimiterMetrics.NONE);
        try {
            Future<Verdict> first = callers.submit(() -> limiter.consume(BUCKET, "first"));
            await().until(() -> slow.waiting.get() == 1);

            long began = System.nanoTime();
            Verdict late = limiter.consume(BUCKET, "late");

            assertThat(late.outcome()).isEqualTo(Verdict.Outcome.UNAVAILABLE);
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThanOrEqualTo(Duration.ofMillis(200))
                    .isLessThan(Duration.ofSeconds(10));
            assertThat(monitor.errors()).isEqualTo(1);
            slow.open();
            assertThat(first.get(10, TimeUnit.SECONDS).isAllowed()).isTrue();
            assertThat(slow.decided).containsExactly("first");
        } finally {
            slow.open();
        }
    }

    @Test
    void aCallTheStoreLeftUndecidedGoesAgainAlone() throws Exception {
        store.undecided = "queued-1";
        StoreLimiter limiter = new StoreLimiter(store, monitor, RateLimiterMetrics.NONE);
        Future<Verdict> first = callers.submit(() -> limiter.consume(BUCKET, "first"));
        await().until(() -> store.waiting.get() == 1);
        List<Future<Verdict>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String key = "queued-" + i;
            queued.add(callers.submit(() -> limiter.consume(BUCKET, key)));
        }
        await().until(() -> queuedCalls() == 3);

        store.open();

        for (Future<Verdict> call : queued) {
            assertThat(call.get(10, TimeUnit.SECONDS).remaining()).isEqualTo(999);
        }
        first.get(10, TimeUnit.SECONDS);
        assertThat(store.batches).containsExactly(3);
        assertThat(store.alone.get()).isEqualTo(2); // the first call, and queued-1 again
        assertThat(store.decided).containsOnlyOnce("queued-1");
    }

    @Test
    void withoutBatchingEveryCallGoesAlone() throws Exception {
        MapStore plain = new MapStore(InstantSource.system());
        StoreLimiter limiter = new StoreLimiter(plain, monitor, RateLimiterMetrics.NONE);
        List<Future<Verdict>> calls = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            calls.add(callers.submit(() -> limiter.consume(BUCKET, "k")));
        }
        for (Future<Verdict> call : calls) {
            call.get(10, TimeUnit.SECONDS);
        }
        assertThat(limiter.batching()).isFalse();
        assertThat(plain.calls()).isEqualTo(16);
    }

    /** The calls queued in a batcher: the threads parked in its queue, not yet in a round trip. */
    private static int queuedCalls() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getState() == Thread.State.TIMED_WAITING
                        && List.of(thread.getStackTrace()).stream().anyMatch(frame ->
                        frame.getClassName().endsWith("RoundTripBatcher$Lane") && frame.getMethodName().equals("await")))
                .count();
    }

    /**
     * A store whose round trips wait at a gate until the test opens it, counting single calls and batches; it
     * answers every item allowed with a count of 1, or fails every round trip while {@link #failing}.
     */
    private static final class GatedStore implements RateLimitStore {

        private final StoreBatching batching;
        private final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger waiting = new AtomicInteger();
        final AtomicInteger alone = new AtomicInteger();
        final List<Integer> batches = new CopyOnWriteArrayList<>();
        final List<String> decided = new CopyOnWriteArrayList<>();
        volatile boolean failing;
        volatile String undecided = "";

        GatedStore(StoreBatching batching) {
            this.batching = batching;
        }

        void open() {
            gate.countDown();
        }

        private void pass() throws StoreException {
            waiting.incrementAndGet();
            try {
                if (!gate.await(30, TimeUnit.SECONDS)) {
                    throw new StoreException(FailureKind.TRANSIENT, new IOException("gate never opened"));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StoreException(FailureKind.TRANSIENT, e);
            } finally {
                waiting.decrementAndGet();
            }
            if (failing) {
                throw new StoreException(FailureKind.TRANSIENT, new IOException("connection reset"));
            }
        }

        @Override
        public long[] consume(List<StoreItem> items) throws StoreException {
            alone.incrementAndGet();
            pass();
            return answer(items);
        }

        @Override
        public long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
            batches.add(calls.size());
            pass();
            long[][] answers = new long[calls.size()][];
            for (int i = 0; i < answers.length; i++) {
                if (!calls.get(i).get(0).key().equals(undecided)) {
                    answers[i] = answer(calls.get(i));
                }
            }
            return answers;
        }

        private long[] answer(List<StoreItem> items) {
            StoreItem item = items.get(0);
            decided.add(item.key());
            return new long[] {1, 1, item.bucket().window().toMillis()};
        }

        @Override
        public void reset(Bucket bucket, String key) {
        }

        @Override
        public void probe() {
        }

        @Override
        public boolean blocking() {
            return true;
        }

        @Override
        public Optional<StoreBatching> batching() {
            return Optional.of(batching);
        }
    }
}
