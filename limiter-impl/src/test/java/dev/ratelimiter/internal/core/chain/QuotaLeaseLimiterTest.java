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
        assertThat(memory.consume(pro, "k", 0).remaining()).as("2 used before, the new lease counted after")
                .isLessThanOrEqualTo(1_000 - 3).isGreaterThanOrEqualTo(1_000 - 2 - 100);
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
