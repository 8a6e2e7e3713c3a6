package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.Capability;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.contract.RateLimiterContract;
import dev.ratelimiter.internal.core.chain.OutagePolicyLimiter;
import dev.ratelimiter.internal.core.monitor.OutageStatistics;
import dev.ratelimiter.internal.core.verdict.SlidingWindows;
import dev.ratelimiter.internal.core.verdict.TokenBuckets;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-memory limiter: the whole contract with a manual clock, plus its cap and its sweep. */
class MemoryRateLimiterTest extends RateLimiterContract {

    private static final Duration MINUTE = Duration.ofSeconds(60);

    @Override
    protected Limiter newLimiter(InstantSource clock) {
        return new MemoryRateLimiter(clock, 100_000);
    }

    @Override
    protected Set<Capability> capabilities() {
        return Capability.inMemory();
    }

    @Test
    @DisplayName("sweep deletes a counter whose window ends now, not one that ends a millisecond later")
    void sweepDeletesExactlyEndedCounters() {
        MemoryRateLimiter memory = (MemoryRateLimiter) limiter;
        Bucket bucket = bucket("sweep", 5, MINUTE);
        memory.consume(bucket, "ends-now");
        clock.advance(Duration.ofMillis(1));
        memory.consume(bucket, "ends-later");
        clock.advance(MINUTE.minusMillis(1));

        assertThat(memory.sweep()).isEqualTo(1);

        assertThat(memory.liveCounters(bucket.name())).isEqualTo(1);
        assertThat(memory.consume(bucket, "ends-later").remaining()).isEqualTo(3); // still its first window
        assertThat(memory.sweep()).isZero();
    }

    @Test
    @DisplayName("at the cap a new key is unavailable while existing keys are still counted; warned once")
    void capRefusesNewKeysOnly() {
        MemoryRateLimiter memory = new MemoryRateLimiter(clock, 2);
        Bucket bucket = bucket("cap", 3, MINUTE);
        memory.consume(bucket, "a");
        memory.consume(bucket, "b");

        Verdict refused = memory.consume(bucket, "c");

        assertThat(refused.outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(memory.consume(bucket, "a").remaining()).isEqualTo(1);
        assertThat(memory.consume(bucket, "d").outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(memory.refusedAtCap(bucket.name())).isEqualTo(2);
        assertThat(memory.liveCounters(bucket.name())).isEqualTo(2);
    }

    @Test
    @DisplayName("a reset frees the key's place under the cap")
    void resetFreesCapacity() {
        MemoryRateLimiter memory = new MemoryRateLimiter(clock, 1);
        Bucket bucket = bucket("free", 3, MINUTE);
        memory.consume(bucket, "a");
        memory.reset(bucket, "a");

        assertThat(memory.consume(bucket, "b").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(memory.liveCounters(bucket.name())).isEqualTo(1);
    }

    @Test
    @DisplayName("at the cap, counters whose windows ended make room without waiting for the sweeper")
    void capSweepsEndedWindows() {
        MemoryRateLimiter memory = new MemoryRateLimiter(clock, 1);
        Bucket bucket = bucket("room", 3, MINUTE);
        memory.consume(bucket, "a");
        clock.advance(MINUTE);

        assertThat(memory.consume(bucket, "b").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("1 000 000 distinct keys over two windows: live counters never exceed the cap, keys past it get "
            + "the outage policy, and all are swept after the windows end")
    void millionKeysStayUnderCap() {
        int cap = 10_000;
        MemoryRateLimiter memory = new MemoryRateLimiter(clock, cap);
        OutageStatistics outages = new OutageStatistics();
        Limiter limiter = new OutagePolicyLimiter(memory, Optional.empty(), outages);
        Bucket failClosed = Bucket.of(bucket("closed", 5, MINUTE).name(), 5, MINUTE, OutagePolicy.FAIL_CLOSED);
        Bucket fallback = bucket("fallback", 5, MINUTE);

        long unavailable = 0;
        long allowed = 0;
        int maxLive = 0;
        for (int window = 0; window < 2; window++) {
            for (int i = 0; i < 500_000; i++) {
                String key = "w" + window + "-" + i;
                Verdict closed = limiter.consume(failClosed, key);
                Verdict open = limiter.consume(fallback, key);
                unavailable += closed.outcome() == Outcome.UNAVAILABLE ? 1 : 0;
                allowed += open.isAllowed() ? 1 : 0;
                if (i % 1_000 == 0) {
                    clock.advance(Duration.ofMillis(100));
                    maxLive = Math.max(maxLive, Math.max(memory.liveCounters(failClosed.name()),
                            memory.liveCounters(fallback.name())));
                }
            }
            clock.advance(MINUTE);
        }

        assertThat(maxLive).isEqualTo(cap);
        // Each window admits `cap` keys per bucket (the cap frees up as soon as the previous window ends).
        assertThat(unavailable).isEqualTo(2L * (500_000 - cap));
        assertThat(outages.failCloseds(failClosed.name())).isEqualTo(unavailable);
        assertThat(allowed).isEqualTo(2L * 500_000); // fallback with nothing to fall back to: allowed, counted
        assertThat(outages.failOpens(fallback.name())).isEqualTo(2L * (500_000 - cap));

        assertThat(memory.sweep()).isEqualTo(2L * cap);
        assertThat(memory.liveCounters(failClosed.name())).isZero();
        assertThat(memory.liveCounters(fallback.name())).isZero();
    }

    @Test
    @DisplayName("resetAfter follows the clock's millisecond: calls of one millisecond agree, the next millisecond says one less")
    void resetAfterFollowsEachMillisecond() {
        Bucket bucket = bucket("reset-ms", 100, MINUTE);
        assertThat(limiter.consume(bucket, "k").resetAfter()).isEqualTo(MINUTE);
        assertThat(limiter.consume(bucket, "k").resetAfter()).isEqualTo(MINUTE);
        clock.advance(Duration.ofMillis(1));
        assertThat(limiter.consume(bucket, "k").resetAfter()).isEqualTo(MINUTE.minusMillis(1));
        assertThat(limiter.consume(bucket, "k").resetAfter()).isEqualTo(MINUTE.minusMillis(1));
        clock.advance(Duration.ofMillis(998));
        Verdict later = limiter.consume(bucket, "k");
        assertThat(later.resetAfter()).isEqualTo(MINUTE.minusMillis(999));
        assertThat(later.remaining()).isEqualTo(95);
        clock.advance(Duration.ofMillis(1));
        assertThat(limiter.consume(bucket, "k").resetAfter()).isEqualTo(MINUTE.minusSeconds(1));
    }

    @Test
    @DisplayName("a bucket rebuilt with a shorter window under the same name ends the open window within its own "
            + "length, its count kept, and the end stays clamped (docs/stores.md#counters-across-a-change-of-settings)")
    void rebuiltShorterBucketClampsResetAfter() {
        Bucket hourly = bucket("rebuilt", 5, Duration.ofHours(1));
        Bucket minutely = Bucket.of(hourly.name(), 5, MINUTE);
        limiter.consume(hourly, "k");
        clock.advance(Duration.ofMillis(1));

        Verdict verdict = limiter.consume(minutely, "k");

        assertThat(verdict.resetAfter()).isEqualTo(MINUTE);
        assertThat(verdict.remaining()).isEqualTo(3); // still counted in the window the hourly bucket opened
        assertThat(limiter.consume(hourly, "k").resetAfter()).as("the window's end moved, never to move back")
                .isEqualTo(MINUTE);
        clock.advance(MINUTE);
        assertThat(limiter.consume(hourly, "k").remaining()).as("a new window, of the hourly bucket's length")
                .isEqualTo(4);
    }

    @Test
    @DisplayName("buckets decided in turn keep their own counts; a new instance of a bucket's name shares its counters")
    void bucketsInTurnKeepTheirCounts() {
        Bucket first = bucket("turn-a", 2, MINUTE);
        Bucket second = bucket("turn-b", 3, MINUTE);
        Bucket firstAgain = Bucket.of(first.name(), 2, MINUTE);

        assertThat(limiter.consume(first, "k").remaining()).isEqualTo(1);
        assertThat(limiter.consume(second, "k").remaining()).isEqualTo(2);
        assertThat(limiter.consume(first, "k").remaining()).isZero();
        assertThat(limiter.consume(second, "k").remaining()).isEqualTo(1);
        assertThat(limiter.consume(firstAgain, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(second, "k").remaining()).isZero();
        assertThat(limiter.consume(second, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("a cap below 1 is refused")
    void capMustBePositive() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new MemoryRateLimiter(new ManualClock(START), 0))
                .withMessageContaining("at least 1");
    }

    @Test
    @DisplayName("carry takes a store's verdict as the key's count until the store's window ends; a verdict with "
            + "nothing counted clears the key; an unavailable one changes nothing")
    void carryOneWindow() {
        MemoryRateLimiter memory = (MemoryRateLimiter) limiter;
        Bucket bucket = bucket("carry", 5, MINUTE);
        memory.consume(bucket, "k"); // counted here before: the store's count replaces it
        memory.carry(bucket, "k", new Verdict(Outcome.ALLOWED, 5, 2, Duration.ofSeconds(10), List.of()));
        assertThat(memory.consume(bucket, "k").remaining()).isEqualTo(1);
        memory.carry(bucket, "k", new Verdict(Outcome.ALLOWED, 5, 1, Duration.ofSeconds(10), List.of()));
        assertThat(memory.consume(bucket, "k").remaining()).as("the same window, set in place").isZero();
        Verdict refused = memory.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.resetAfter()).isEqualTo(Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(10));
        assertThat(memory.consume(bucket, "k").remaining()).as("the store's window ended").isEqualTo(4);

        memory.carry(bucket, "k", Verdict.unavailable(5, Duration.ZERO));
        assertThat(memory.consume(bucket, "k").remaining()).isEqualTo(3);
        memory.carry(bucket, "k", new Verdict(Outcome.ALLOWED, 5, 5, MINUTE, List.of()));
        assertThat(memory.liveCounters(bucket.name())).as("nothing counted in the store: cleared").isZero();
    }

    @Test
    @DisplayName("carry takes each window of a bucket of several from the store's verdict")
    void carrySeveralWindows() {
        MemoryRateLimiter memory = (MemoryRateLimiter) limiter;
        Limit burst = new Limit(3, Duration.ofSeconds(10));
        Limit hour = new Limit(10, Duration.ofHours(1));
        Bucket bucket = Bucket.of("carry-several", List.of(burst, hour), OutagePolicy.FALLBACK);
        memory.carry(bucket, "k", new Verdict(Outcome.ALLOWED, 3, 2, Duration.ofSeconds(4), List.of(
                new Verdict.Window(burst, 2, Duration.ofSeconds(4)),
                new Verdict.Window(hour, 1, Duration.ofMinutes(30)))));
        assertThat(memory.consume(bucket, "k").outcome()).as("one left in the hour").isEqualTo(Outcome.ALLOWED);
        assertThat(memory.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        clock.advance(Duration.ofSeconds(10));
        assertThat(memory.consume(bucket, "k").outcome()).as("the hour's count outlasts the burst window")
                .isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("carry of a new key at the bucket's cap is dropped: memory stays bounded and nothing is refused")
    void carryAtCap() {
        MemoryRateLimiter memory = new MemoryRateLimiter(clock, 1);
        Bucket bucket = bucket("carry-cap", 5, MINUTE);
        memory.carry(bucket, "a", new Verdict(Outcome.ALLOWED, 5, 0, MINUTE, List.of()));
        memory.carry(bucket, "b", new Verdict(Outcome.ALLOWED, 5, 0, MINUTE, List.of()));
        assertThat(memory.liveCounters(bucket.name())).isEqualTo(1);
        assertThat(memory.consume(bucket, "a").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("token bucket: the sweep deletes a key's state once every window is full again (at that instant, not a millisecond before)")
    void sweepDeletesFullTokenBuckets() {
        MemoryRateLimiter memory = (MemoryRateLimiter) limiter;
        Bucket bucket = tokenBucket("tb-sweep", 0, new Limit(2, Duration.ofSeconds(10)),
                new Limit(4, Duration.ofSeconds(60)));
        memory.consume(bucket, "k");
        clock.advance(Duration.ofSeconds(15).minusMillis(1));
        assertThat(memory.sweep()).as("the 60 s window refills a token in 15 s").isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(memory.sweep()).isEqualTo(1);
        assertThat(memory.liveCounters(bucket.name())).isZero();
        assertThat(memory.consume(bucket, "k", 0).remaining()).isEqualTo(2);
    }

    @Test
    @DisplayName("token bucket: carry takes the store's whole tokens left per window, so the fallback goes on from them")
    void carryTokenBucket() {
        MemoryRateLimiter memory = (MemoryRateLimiter) limiter;
        Bucket bucket = tokenBucket("tb-carry", 0, new Limit(10, Duration.ofSeconds(10)));
        memory.carry(bucket, "k", TokenBuckets.single(bucket, 1, true, 3, 7_000));
        assertThat(memory.consume(bucket, "k").remaining()).isEqualTo(2);
        assertThat(memory.consume(bucket, "k", 3).outcome()).isEqualTo(Verdict.Outcome.DENIED);
        clock.advance(Duration.ofSeconds(1));
        assertThat(memory.consume(bucket, "k", 3).outcome()).isEqualTo(Verdict.Outcome.ALLOWED);
    }

    @Test
    @DisplayName("plans: a carried verdict is read under the bucket it was decided under, whatever bucket of the name "
            + "the key was counted under before (token bucket: in the plan's tokens)")
    void carryUnderAPlan() {
        MemoryRateLimiter memory = (MemoryRateLimiter) limiter;
        Bucket tokens = tokenBucket("tb-carry-plan", 0, new Limit(10, Duration.ofSeconds(10)));
        Bucket tokensPro = tokens.withPlan("pro", List.of(new Limit(100, Duration.ofSeconds(10))), 0);
        memory.consume(tokens, "k");
        memory.carry(tokensPro, "k", TokenBuckets.single(tokensPro, 1, true, 60, 4_000));
        assertThat(memory.consume(tokensPro, "k").remaining()).as("the store's 60 of 100, and this call")
                .isEqualTo(59);

        Bucket sliding = slidingWindow("sw-carry-plan", new Limit(10, Duration.ofSeconds(10)));
        Bucket slidingPro = sliding.withPlan("pro", List.of(new Limit(100, Duration.ofSeconds(10))), 0);
        memory.consume(sliding, "k");
        memory.carry(slidingPro, "k", SlidingWindows.single(slidingPro, 1, true, 40, 0, 6_000));
        assertThat(memory.consume(slidingPro, "k").remaining()).as("the store's 40 of 100, and this call")
                .isEqualTo(59);
        assertThat(memory.consume(sliding, "k").outcome()).as("42 counted, above the bucket's own 10")
                .isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("sliding window: carry takes the store's count until it has slid out there, set in place while the "
            + "store's window is the one held; a carried refusal holds until the refused call could pass, at least")
    void carrySlidingWindow() {
        MemoryRateLimiter memory = (MemoryRateLimiter) limiter;
        Bucket bucket = slidingWindow("sw-carry", new Limit(10, Duration.ofSeconds(10)));
        memory.carry(bucket, "k", SlidingWindows.single(bucket, 1, true, 3, 0, 6_000));
        assertThat(memory.consume(bucket, "k").remaining()).isEqualTo(6);
        memory.carry(bucket, "k", SlidingWindows.single(bucket, 1, true, 5, 0, 6_000));
        assertThat(memory.consume(bucket, "k").remaining()).as("the store's 5, and this call").isEqualTo(4);
        clock.advance(Duration.ofSeconds(6));
        assertThat(memory.consume(bucket, "k").remaining()).as("the next window: the 6 weigh 6, and this call")
                .isEqualTo(3);

        Verdict refused = SlidingWindows.single(bucket, 1, false, 10, 0, 4_000);
        assertThat(refused.resetAfter()).as("the store's wait").isEqualTo(Duration.ofSeconds(5));
        memory.carry(bucket, "spent", refused);
        assertThat(memory.consume(bucket, "spent").outcome()).isEqualTo(Outcome.DENIED);
        clock.advance(Duration.ofSeconds(6));
        assertThat(memory.consume(bucket, "spent").outcome()).isEqualTo(Outcome.ALLOWED);

        memory.carry(bucket, "k", Verdicts.untouched(bucket));
        assertThat(memory.liveCounters(bucket.name())).as("nothing counted in the store: cleared").isEqualTo(1);
    }

    @Test
    @DisplayName("sliding window of several windows: carry takes each window from the store's verdict")
    void carrySlidingWindows() {
        MemoryRateLimiter memory = (MemoryRateLimiter) limiter;
        Bucket bucket = slidingWindow("sw-carry-several", new Limit(3, Duration.ofSeconds(10)),
                new Limit(10, Duration.ofHours(1)));
        memory.carry(bucket, "k", SlidingWindows.of(bucket, 1, true, new long[] {1, 9}, new long[] {0, 0},
                new long[] {5_000, 1_800_000}));
        assertThat(memory.consume(bucket, "k").outcome()).as("one left in the hour").isEqualTo(Outcome.ALLOWED);
        assertThat(memory.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        clock.advance(Duration.ofSeconds(30));
        assertThat(memory.consume(bucket, "k").outcome()).as("the hour's count outlasts the short window")
                .isEqualTo(Outcome.DENIED);
    }
}
