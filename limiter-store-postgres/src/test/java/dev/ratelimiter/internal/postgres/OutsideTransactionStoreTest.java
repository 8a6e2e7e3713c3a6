package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Store calls made inside the caller's transaction run on the executor (a thread without it), the caller waits
 * for their verdict; calls outside a transaction stay on the caller's thread; a hand-over that fails or takes
 * too long is a store failure answered UNAVAILABLE (through the library's {@link StoreLimiter}).
 */
class OutsideTransactionStoreTest {

    private static final Bucket BUCKET = Bucket.of("tx", 5, Duration.ofSeconds(60));
    private static final Bucket PERMITS = Bucket.concurrency("tx-permits", 2, Duration.ofSeconds(30),
            dev.ratelimiter.OutagePolicy.FALLBACK);

    private final List<String> threads = new CopyOnWriteArrayList<>();
    private final ExecutorService executor = Executors.newSingleThreadExecutor(task -> new Thread(task, "managed"));
    private final AtomicBoolean inTransaction = new AtomicBoolean();
    private final BackendMonitor monitor = new BackendMonitor("postgres", InstantSource.system(),
            RateLimiterMetrics.NONE);
    private final RateLimitStore store = new RateLimitStore() {
        @Override
        public long[] consume(List<StoreItem> items) {
            threads.add("consume on " + Thread.currentThread().getName());
            return new long[] {1, 1, 60_000}; // allowed, 1 counted, 60 s left
        }

        @Override
        public void refund(List<StoreRefund> refunds) {
            threads.add("refund on " + Thread.currentThread().getName());
        }

        @Override
        public void reset(Bucket bucket, String key) {
            threads.add("reset on " + Thread.currentThread().getName());
        }

        @Override
        public long[] take(StorePermit permit) {
            threads.add("take on " + Thread.currentThread().getName());
            return new long[] {1, 1, 0}; // allowed, 1 held, none ended
        }

        @Override
        public void giveBack(List<StorePermit> permits) {
            threads.add("giveBack on " + Thread.currentThread().getName());
        }

        @Override
        public long[] renew(List<StorePermit> permits) {
            threads.add("renew on " + Thread.currentThread().getName());
            return new long[] {1};
        }

        @Override
        public void probe() {
        }

        @Override
        public boolean blocking() {
            return true;
        }
    };

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    @Test
    @DisplayName("inside a transaction: consume, refund and reset run on the executor's thread, the verdict comes back")
    void insideTransactionHandedOver() {
        inTransaction.set(true);
        StoreLimiter limiter = limiter(Duration.ofSeconds(10));

        Verdict verdict = limiter.consume(BUCKET, "k");
        assertThat(limiter.refund(List.of(new StoreRefund(BUCKET, "k", 1, new long[] {60_000})))).isTrue();
        limiter.reset(BUCKET, "k");

        assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(verdict.remaining()).isEqualTo(4);
        assertThat(threads).containsExactly("consume on managed", "refund on managed", "reset on managed");
        assertThat(monitor.errors()).isZero();
    }

    @Test
    @DisplayName("inside a transaction: a concurrency bucket's take, give-back and renewal run on the executor's "
            + "thread too, their answers come back")
    void permitsHandedOver() {
        inTransaction.set(true);
        StoreLimiter limiter = limiter(Duration.ofSeconds(10));
        StorePermit permit = new StorePermit(PERMITS, "k", 7);

        Verdict verdict = limiter.take(permit);
        assertThat(limiter.renew(List.of(permit))).containsExactly(true);
        assertThat(limiter.giveBack(List.of(permit))).isTrue();

        assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(verdict.remaining()).isEqualTo(1);
        assertThat(threads).containsExactly("take on managed", "renew on managed", "giveBack on managed");
        inTransaction.set(false);
        limiter.take(permit);
        assertThat(threads).last().isEqualTo("take on " + Thread.currentThread().getName());
        assertThat(monitor.errors()).isZero();
    }

    @Test
    @DisplayName("outside a transaction: the caller's own thread, no hand-over")
    void outsideTransactionInline() {
        StoreLimiter limiter = limiter(Duration.ofSeconds(10));

        limiter.consume(BUCKET, "k");
        limiter.refund(List.of(new StoreRefund(BUCKET, "k", 1, new long[] {60_000})));
        limiter.reset(BUCKET, "k");

        String caller = Thread.currentThread().getName();
        assertThat(threads).containsExactly("consume on " + caller, "refund on " + caller, "reset on " + caller);
    }

    @Test
    @DisplayName("an executor that does not get to the call within the deadline: UNAVAILABLE, a store failure, "
            + "and the call never runs")
    void deadline() throws InterruptedException {
        inTransaction.set(true);
        CountDownLatch release = new CountDownLatch(1);
        executor.submit(() -> {
            release.await(); // the only thread is busy until released
            return null;
        });
        Limiter limiter = limiter(Duration.ofMillis(50));

        assertThat(limiter.consume(BUCKET, "k").outcome()).isEqualTo(Outcome.UNAVAILABLE);

        assertThat(monitor.errors()).isEqualTo(1);
        release.countDown();
        executor.shutdown();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(threads).as("the cancelled call").isEmpty();
    }

    @Test
    @DisplayName("an executor that refuses the call (shut down): UNAVAILABLE and a store failure, never an exception")
    void rejected() {
        inTransaction.set(true);
        executor.shutdown();
        Limiter limiter = limiter(Duration.ofSeconds(10));

        assertThat(limiter.consume(BUCKET, "k").outcome()).isEqualTo(Outcome.UNAVAILABLE);
        limiter.reset(BUCKET, "k");

        assertThat(monitor.errors()).isEqualTo(2);
        assertThat(threads).isEmpty();
    }

    private StoreLimiter limiter(Duration deadline) {
        return new StoreLimiter(new OutsideTransactionStore(store, inTransaction::get, executor, deadline), monitor,
                RateLimiterMetrics.NONE);
    }
}
