package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.CountingLimiter;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.contract.UnavailableStore;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.OutageListener;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;
import dev.ratelimiter.spi.StoreItem;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link QuotaLeaseLimiter} does beside the contract's cases ({@code QuotaLeaseCases}): its metrics, the calls it
 * passes through unchanged, a refusal's own {@code Retry-After}, and a key whose limits change under its lease.
 */
class QuotaLeaseLimiterTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration IDLE = Duration.ofSeconds(1);

    private final ManualClock clock = new ManualClock(START);
    private final MemoryRateLimiter memory = new MemoryRateLimiter(clock, 10_000);
    private final CountingLimiter store = new CountingLimiter(memory);
    private final Bucket bucket = Bucket.of("hot", 100, Duration.ofMinutes(1));
    private final Recorded metrics = new Recorded();

    @Test
    @DisplayName("metrics: a lease taken with its size, each local decision, and a lease given back with its unused "
            + "attempts")
    void metrics() {
        QuotaLeaseLimiter leases = leasing(bucket, 10);
        for (int i = 0; i < 4; i++) {
            leases.consume(bucket, "k", 1); // alone, then a lease of 10 used 3 times
            clock.advance(Duration.ofMillis(1));
        }
        clock.advance(IDLE);
        leases.sweep();

        assertThat(metrics.events).containsExactly("taken 10", "local", "local", "returned 7");
    }

    @Test
    @DisplayName("a check (cost 0) is answered from a lease when one is held, and takes none when none is")
    void checks() {
        QuotaLeaseLimiter leases = leasing(bucket, 10);
        assertThat(leases.consume(bucket, "k", 0).remaining()).isEqualTo(100);
        assertThat(store.calls()).isEqualTo(1);
        assertThat(memory.consume(bucket, "k", 0).remaining()).as("the check took nothing").isEqualTo(100);

        leases.consume(bucket, "k", 1);
        leases.consume(bucket, "k", 1); // a lease of 10, 1 used
        long calls = store.calls();
        assertThat(leases.consume(bucket, "k", 0).remaining()).as("the store's 89 and the lease's 9").isEqualTo(98);
        assertThat(store.calls()).isEqualTo(calls);
    }

    @Test
    @DisplayName("buckets without quota leases pass through: several items reach the store in one call")
    void othersPassThrough() {
        QuotaLeaseLimiter leases = leasing(bucket, 10);
        Bucket other = Bucket.of("other", 5, Duration.ofMinutes(1));
        Verdict[] verdicts = leases.consumeAll(List.of(new StoreItem(other, "a", 1), new StoreItem(other, "b", 1)));

        assertThat(verdicts).extracting(Verdict::outcome).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED);
        assertThat(store.calls()).isEqualTo(1);
    }

    @Test
    @DisplayName("a token bucket's refusal after the leases is the call's own: its Retry-After is when one token is "
            + "back, not when a lease's worth is")
    void tokenBucketRefusalIsTheCallsOwn() {
        Bucket tokens = Bucket.of("tokens", List.of(new Limit(60, Duration.ofMinutes(1))), OutagePolicy.FALLBACK,
                Algorithm.TOKEN_BUCKET, 0);
        QuotaLeaseLimiter leases = leasing(tokens, 50);
        int allowed = 0;
        Verdict last;
        while ((last = leases.consume(tokens, "k", 1)).isAllowed()) {
            allowed++;
        }

        assertThat(allowed).isEqualTo(60);
        assertThat(last.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(last.resetAfter()).as("one token's refill: 1 s").isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    @DisplayName("a key whose limits change under its lease (a plan, a reload) gives the lease back and takes one "
            + "under the new limits")
    void limitsChangedUnderTheLease() {
        QuotaLeaseLimiter leases = leasing(bucket, 10);
        leases.consume(bucket, "k", 1);
        leases.consume(bucket, "k", 1); // a lease of 10: 11 counted, 2 used
        Bucket pro = bucket.withPlan("pro", List.of(new Limit(1_000, Duration.ofMinutes(1))), 0);

        Verdict verdict = leases.consume(pro, "k", 1);

        assertThat(verdict.limit()).isEqualTo(1_000);
        assertThat(metrics.events).contains("returned 9");
        assertThat(memory.consume(pro, "k", 0).remaining())
                .as("the 2 used before (the old lease's 9 given back), then a new lease of 10 %% of 1 000")
                .isEqualTo(1_000 - 2 - 100);
    }

    @Test
    @DisplayName("a reset forgets this replica's lease with the key's windows")
    void resetForgetsTheLease() {
        QuotaLeaseLimiter leases = leasing(bucket, 10);
        leases.consume(bucket, "k", 1);
        leases.consume(bucket, "k", 1);
        long calls = store.calls();

        leases.reset(bucket, "k");
        leases.consume(bucket, "k", 1);

        assertThat(store.calls()).as("the reset, then a new lease").isEqualTo(calls + 2);
        assertThat(leases.sweep()).isZero();
    }

    @Test
    @DisplayName("an outage: a lease held goes on deciding without the store; once it is used up the fallback "
            + "decides, starting from the lease's verdicts")
    void outage() {
        AtomicBoolean down = new AtomicBoolean();
        UnavailableStore unavailable = new UnavailableStore();
        Limiter switching = new Limiter() {
            @Override
            public Verdict consume(Bucket leased, String key, long cost) {
                return (down.get() ? unavailable : store).consume(leased, key, cost);
            }

            @Override
            public void reset(Bucket leased, String key) {
                store.reset(leased, key);
            }

            @Override
            public boolean refund(List<StoreRefund> refunds) {
                return !down.get() && store.refund(refunds);
            }
        };
        SharedStoreChain chain = SharedStoreChain.of(switching, () -> { }, new BackendMonitor("test", clock, RateLimiterMetrics.NONE), clock,
                new MemoryRateLimiter(clock, 100), OutageListener.NONE,
                BreakerSettings.DEFAULTS,
                DenyCacheSettings.OFF, metrics,
                Map.of(bucket.name(), new QuotaLeaseSettings(10, IDLE)));
        try {
            chain.limiter().consume(bucket, "k", 1);
            clock.advance(Duration.ofMillis(1));
            chain.limiter().consume(bucket, "k", 1); // a lease of 10: 11 counted, 2 used
            down.set(true);
            long calls = store.calls();

            for (int i = 0; i < 9; i++) {
                assertThat(chain.limiter().consume(bucket, "k", 1).outcome()).isEqualTo(Outcome.ALLOWED);
            }
            assertThat(store.calls()).as("decided from the lease").isEqualTo(calls);

            int byFallback = 0;
            while (byFallback < 200 && chain.limiter().consume(bucket, "k", 1).isAllowed()) {
                byFallback++;
            }
            assertThat(byFallback).as("the fallback went on from the last verdict: 100 less the 11 used")
                    .isEqualTo(100 - 11);
        } finally {
            chain.breaker().close();
        }
    }

    @Test
    @DisplayName("several windows: a lease holds until its shortest window ends, and its unused part goes back into "
            + "the longer ones, so a key called in short bursts gets its whole longer limit")
    void severalWindowsGiveTheRestBack() {
        Bucket both = Bucket.of("both", List.of(new Limit(100, Duration.ofSeconds(1)),
                new Limit(1_000, Duration.ofHours(1))), OutagePolicy.FALLBACK);
        QuotaLeaseLimiter leases = leasing(both, 50);
        int admitted = 0;
        for (int second = 0; second < 80; second++) {
            for (int call = 0; call < 20; call++) {
                admitted += leases.consume(both, "k", 1).isAllowed() ? 1 : 0;
                clock.advance(Duration.ofMillis(10));
            }
            clock.advance(Duration.ofMillis(800));
        }

        assertThat(admitted).as("the hour's 1 000, not what the leases left counted in it").isEqualTo(1_000);
    }

    @Test
    @DisplayName("several windows: a call decided from a lease reports each window moved on by the time since the take, "
            + "with the lease's unused part in its remaining")
    void severalWindowsMovedOn() {
        Bucket both = Bucket.of("both", List.of(new Limit(100, Duration.ofSeconds(10)),
                new Limit(1_000, Duration.ofHours(1))), OutagePolicy.FALLBACK);
        QuotaLeaseLimiter leases = leasing(both, 10);
        leases.consume(both, "k", 1);
        clock.advance(Duration.ofMillis(1));
        leases.consume(both, "k", 1); // a lease of 10 at 1 ms: 11 counted
        clock.advance(Duration.ofSeconds(7));

        Verdict verdict = leases.consume(both, "k", 1);

        assertThat(verdict.windows()).hasSize(2);
        assertThat(verdict.windows().get(0).resetAfter()).isEqualTo(Duration.ofMillis(10_000 - 7_001));
        assertThat(verdict.windows().get(0).remaining()).as("89 in the store, 8 in the lease").isEqualTo(97);
        assertThat(verdict.windows().get(1).remaining()).isEqualTo(1_000 - 3);
    }

    @Test
    @DisplayName("racing: 8 threads on two replicas call one key while leases are swept and given back; together "
            + "they are allowed the limit, never more")
    void racing() throws Exception {
        Bucket hot = Bucket.of("racing", 5_000, Duration.ofHours(1));
        Map<String, QuotaLeaseSettings> settings = Map.of(hot.name(), new QuotaLeaseSettings(5,
                QuotaLeaseSettings.MIN_IDLE));
        List<QuotaLeaseLimiter> replicas = List.of(
                new QuotaLeaseLimiter(memory, settings, RateLimiterMetrics.NONE, System::nanoTime),
                new QuotaLeaseLimiter(memory, settings, RateLimiterMetrics.NONE, System::nanoTime));
        java.util.concurrent.atomic.AtomicLong admitted = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(9);
        try {
            List<java.util.concurrent.Future<?>> callers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                QuotaLeaseLimiter replica = replicas.get(t % 2);
                callers.add(pool.submit(() -> {
                    int refusedInARow = 0;
                    while (refusedInARow < 200) {
                        if (replica.consume(hot, "k", 1).isAllowed()) {
                            admitted.incrementAndGet();
                            refusedInARow = 0;
                        } else {
                            refusedInARow++;
                        }
                    }
                }));
            }
            java.util.concurrent.Future<?> sweeper = pool.submit(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    replicas.forEach(QuotaLeaseLimiter::sweep);
                }
            });
            for (java.util.concurrent.Future<?> caller : callers) {
                caller.get(1, java.util.concurrent.TimeUnit.MINUTES);
            }
            sweeper.cancel(true);
        } finally {
            pool.shutdownNow();
        }
        replicas.forEach(QuotaLeaseLimiter::close);

        assertThat(admitted.get()).isLessThanOrEqualTo(5_000)
                .isGreaterThanOrEqualTo(5_000 - 2 * new QuotaLeaseSettings(5, IDLE).largestLease(hot));
        assertThat(memory.consume(hot, "k", 0).remaining()).as("what no one used went back")
                .isEqualTo(5_000 - admitted.get());
    }

    private QuotaLeaseLimiter leasing(Bucket leased, int percent) {
        return new QuotaLeaseLimiter(store, Map.of(leased.name(), new QuotaLeaseSettings(percent, IDLE)), metrics,
                () -> Duration.between(START, clock.instant()).toNanos());
    }

    /** The lease events, in order. */
    private static final class Recorded implements RateLimiterMetrics {
        final List<String> events = new ArrayList<>();

        @Override
        public void quotaLeaseTaken(Bucket bucket, long quota) {
            events.add("taken " + quota);
        }

        @Override
        public void quotaLeaseReturned(Bucket bucket, long unused) {
            events.add("returned " + unused);
        }

        @Override
        public void localDecision(Bucket bucket) {
            events.add("local");
        }
    }
}
