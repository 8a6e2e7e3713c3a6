package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.verdict.Refunds;
import dev.ratelimiter.internal.core.monitor.OutageStatistics;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class OutagePolicyLimiterTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final OutageStatistics outages = new OutageStatistics();
    private final AtomicInteger storeResets = new AtomicInteger();
    private final Limiter down = new Limiter() {
        @Override
        public Verdict consume(Bucket bucket, String key, long cost) {
            return Verdict.unavailable(bucket.limit(), Duration.ofSeconds(4));
        }

        @Override
        public void reset(Bucket bucket, String key) {
            storeResets.incrementAndGet();
        }

        @Override
        public boolean refund(List<StoreRefund> refunds) {
            return false; // down: what it was given back is dropped
        }
    };
    private final MemoryRateLimiter fallback = new MemoryRateLimiter(clock, 100);
    private final Limiter limiter = new OutagePolicyLimiter(down, Optional.of(fallback), outages);

    private static Bucket bucket(OutagePolicy policy) {
        return Bucket.of("b", 2, Duration.ofSeconds(60), policy);
    }

    @Test
    @DisplayName("FALLBACK: the per-process limiter decides, and each fallback is counted")
    void fallbackDecides() {
        Bucket bucket = bucket(OutagePolicy.FALLBACK);
        assertThat(limiter.consume(bucket, "k").remaining()).isEqualTo(1);
        assertThat(limiter.consume(bucket, "k").remaining()).isZero();
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(outages.fallbacks("b")).isEqualTo(3);
        assertThat(outages.totalFallbacks()).isEqualTo(3);
    }

    @Test
    @DisplayName("settlements in an outage: a FALLBACK bucket's debit and credit reach the fallback that counted the "
            + "call, so its next calls there see them; another policy's are dropped, reported as not given")
    void settlementsInAnOutage() {
        Bucket bucket = Bucket.of("tokens", 10, Duration.ofSeconds(60), OutagePolicy.FALLBACK);
        Verdict reserved = limiter.consume(bucket, "k");
        assertThat(limiter.refund(List.of(Refunds.settlement(bucket, "k", 1, 7, reserved, 0).orElseThrow())))
                .as("taken by the fallback").isTrue();
        assertThat(limiter.consume(bucket, "k", 0).remaining()).isEqualTo(3);
        assertThat(limiter.refund(List.of(Refunds.settlement(bucket, "k", 7, 5, reserved, 0).orElseThrow())))
                .isTrue();
        assertThat(limiter.consume(bucket, "k", 0).remaining()).isEqualTo(5);

        Bucket closed = Bucket.of("closed", 10, Duration.ofSeconds(60), OutagePolicy.FAIL_CLOSED);
        Verdict unavailable = limiter.consume(closed, "k");
        assertThat(limiter.refund(List.of(Refunds.settlement(closed, "k", 1, 7, unavailable, 0).orElseThrow())))
                .as("dropped: the store is down and no fallback counted it").isFalse();
    }

    @Test
    @DisplayName("FAIL_OPEN: allowed and counted as fail-open, the fallback untouched")
    void failOpenAllows() {
        Bucket bucket = bucket(OutagePolicy.FAIL_OPEN);
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(outages.failOpens("b")).isEqualTo(5);
        assertThat(fallback.liveCounters("b")).isZero();
    }

    @Test
    @DisplayName("FAIL_CLOSED: the unavailable verdict passes, with the store's retry time")
    void failClosedRefuses() {
        Verdict verdict = limiter.consume(bucket(OutagePolicy.FAIL_CLOSED), "k");
        assertThat(verdict.outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(verdict.retryAfterSeconds()).isEqualTo(4);
        assertThat(outages.failCloseds("b")).isEqualTo(1);
    }

    @Test
    @DisplayName("a reset clears the key in the store and in the fallback")
    void resetBoth() {
        Bucket bucket = bucket(OutagePolicy.FALLBACK);
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        limiter.reset(bucket, "k");
        assertThat(storeResets).hasValue(1);
        assertThat(limiter.consume(bucket, "k").remaining()).isEqualTo(1);
    }

    @Test
    @DisplayName("verdicts of a healthy store pass untouched and nothing is counted")
    void healthyPassesThrough() {
        Limiter healthy = new OutagePolicyLimiter(new MemoryRateLimiter(clock, 10), Optional.of(fallback), outages);
        Bucket bucket = bucket(OutagePolicy.FAIL_CLOSED);
        healthy.consume(bucket, "k");
        healthy.consume(bucket, "k");
        assertThat(healthy.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(outages.failCloseds("b") + outages.fallbacks("b") + outages.failOpens("b")).isZero();
    }

    /** A store that answers from memory of its own until it is taken down, then {@code UNAVAILABLE}. */
    private final class SwitchableStore implements Limiter {
        final MemoryRateLimiter counts = new MemoryRateLimiter(clock, 100);
        boolean up = true;

        @Override
        public Verdict consume(Bucket bucket, String key, long cost) {
            return up ? counts.consume(bucket, key, cost) : down.consume(bucket, key, cost);
        }

        @Override
        public void reset(Bucket bucket, String key) {
            counts.reset(bucket, key);
        }

        @Override
        public boolean refund(List<StoreRefund> refunds) {
            return false; // these tests give nothing back
        }
    }

    @Test
    @DisplayName("the fallback starts an outage from the store's last verdicts: a key the store refused stays "
            + "refused, one with 2 of 5 left has 2, and each only until the store's window ends")
    void fallbackCarriesTheStoresCounts() {
        SwitchableStore store = new SwitchableStore();
        Limiter chain = new OutagePolicyLimiter(store, Optional.of(fallback), outages);
        Bucket bucket = Bucket.of("login", 5, Duration.ofSeconds(60));
        for (int i = 0; i < 6; i++) {
            chain.consume(bucket, "locked");
        }
        clock.advance(Duration.ofSeconds(20));
        for (int i = 0; i < 3; i++) {
            chain.consume(bucket, "two-left");
        }

        store.up = false;
        Verdict locked = chain.consume(bucket, "locked");
        assertThat(locked.outcome()).as("a key the store refused").isEqualTo(Outcome.DENIED);
        assertThat(locked.resetAfter()).as("until the store's window ends").isEqualTo(Duration.ofSeconds(40));
        assertThat(chain.consume(bucket, "two-left").remaining()).isEqualTo(1);
        assertThat(chain.consume(bucket, "two-left").remaining()).isZero();
        assertThat(chain.consume(bucket, "two-left").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(chain.consume(bucket, "unseen").remaining()).as("a key the store never answered").isEqualTo(4);
        assertThat(outages.fallbacks("login")).isEqualTo(5);

        clock.advance(Duration.ofSeconds(40));
        assertThat(chain.consume(bucket, "locked").remaining()).as("after the store's window").isEqualTo(4);
    }

    @Test
    @DisplayName("once the store answers again its counts rule: the next outage starts from them, not from what "
            + "the fallback counted before")
    void storeRulesAgainAfterAnOutage() {
        SwitchableStore store = new SwitchableStore();
        Limiter chain = new OutagePolicyLimiter(store, Optional.of(fallback), outages);
        Bucket bucket = Bucket.of("login", 5, Duration.ofSeconds(60));
        chain.consume(bucket, "k");
        store.up = false;
        chain.consume(bucket, "k");
        chain.consume(bucket, "k");
        store.up = true;
        store.reset(bucket, "k"); // cleared in the store, by another replica say
        assertThat(chain.consume(bucket, "k").remaining()).isEqualTo(4);
        store.up = false;
        assertThat(chain.consume(bucket, "k").remaining()).as("from the store's count").isEqualTo(3);
    }

    @Test
    @DisplayName("FAIL_OPEN and FAIL_CLOSED buckets leave the fallback untouched while the store answers")
    void onlyFallbackBucketsCarried() {
        SwitchableStore store = new SwitchableStore();
        Limiter chain = new OutagePolicyLimiter(store, Optional.of(fallback), outages);
        chain.consume(Bucket.of("open", 5, Duration.ofSeconds(60), OutagePolicy.FAIL_OPEN), "k");
        chain.consume(Bucket.of("closed", 5, Duration.ofSeconds(60), OutagePolicy.FAIL_CLOSED), "k");
        assertThat(fallback.liveCounters("open") + fallback.liveCounters("closed")).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE) // no count to carry
    @DisplayName("plans: the store's verdicts are carried under the bucket each was decided under, so in an outage the "
            + "fallback goes on from the key's count under its plan, not under the first bucket it saw of that name")
    void carriedUnderTheDecidedPlan(Algorithm algorithm) {
        AtomicBoolean up = new AtomicBoolean(true);
        MemoryRateLimiter store = new MemoryRateLimiter(clock, 100); // stands for a shared store, on the same clock
        Limiter flaky = new Limiter() {
            @Override
            public Verdict consume(Bucket bucket, String key, long cost) {
                return up.get() ? store.consume(bucket, key, cost) : Verdict.unavailable(bucket.limit(), Duration.ZERO);
            }

            @Override
            public void reset(Bucket bucket, String key) {
                store.reset(bucket, key);
            }

            @Override
            public boolean refund(List<StoreRefund> refunds) {
                return false; // these tests give nothing back
            }
        };
        Limiter chain = new OutagePolicyLimiter(flaky, Optional.of(fallback), outages);
        Bucket free = Bucket.of("planned", List.of(new Limit(10, Duration.ofSeconds(60))),
                OutagePolicy.FALLBACK, algorithm, 0);
        Bucket pro = free.withPlan("pro", List.of(new Limit(100, Duration.ofSeconds(60))), 0);
        for (int i = 0; i < 3; i++) {
            assertThat(chain.consume(free, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(chain.consume(pro, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        }

        up.set(false);
        Verdict inOutage = chain.consume(pro, "k");
        Verdict storeWouldSay = store.consume(pro, "k");
        assertThat(outages.fallbacks("planned")).isEqualTo(1);
        assertThat(inOutage.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(inOutage.limit()).isEqualTo(pro.limit());
        assertThat(inOutage.remaining()).as("what the store would have answered under pro")
                .isEqualTo(storeWouldSay.remaining());
    }
}
