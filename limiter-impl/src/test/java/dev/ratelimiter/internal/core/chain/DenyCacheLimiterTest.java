package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.CountingLimiter;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.contract.StoreChain;
import dev.ratelimiter.contract.UnavailableStore;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.OutageListener;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The refusals a shared store sent, answered from memory: the "store" is an in-memory limiter on a manual clock,
 * and the cache's monotonic clock reads the same manual time, so expiry is exact.
 */
class DenyCacheLimiterTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final CountingLimiter store = new CountingLimiter(new MemoryRateLimiter(clock, 1_000));
    private final StoreChain.CachedDenials cachedDenials = new StoreChain.CachedDenials();
    private final Bucket login = Bucket.of("login", 2, Duration.ofSeconds(10), OutagePolicy.FALLBACK);

    private long nanos() {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private DenyCacheLimiter cache(Duration maxAge, int maxKeys) {
        return new DenyCacheLimiter(store, new DenyCacheSettings(maxAge, maxKeys), cachedDenials, this::nanos);
    }

    /** Uses up the key's window at the store: two allowed, then the store's refusal. */
    private static Verdict exhaust(Limiter limiter, Bucket bucket, String key) {
        limiter.consume(bucket, key);
        limiter.consume(bucket, key);
        return limiter.consume(bucket, key);
    }

    @Test
    @DisplayName("after the store's refusal the key is refused from memory until the window ends, t recomputed")
    void refusedFromMemoryUntilTheWindowEnds() {
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        assertThat(exhaust(limiter, login, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(store.calls()).isEqualTo(3);

        clock.advance(Duration.ofMillis(2_500));
        Verdict fromMemory = limiter.consume(login, "k");
        assertThat(fromMemory).isEqualTo(Verdict.denied(2, Duration.ofMillis(7_500)));
        clock.advance(Duration.ofMillis(7_499));
        assertThat(limiter.consume(login, "k")).isEqualTo(Verdict.denied(2, Duration.ofMillis(1)));
        assertThat(store.calls()).as("no store call while refused from memory").isEqualTo(3);
        assertThat(cachedDenials.of(login)).isEqualTo(2);

        clock.advance(Duration.ofMillis(1));
        assertThat(limiter.consume(login, "k")).isEqualTo(Verdict.allowed(2, 1, Duration.ofSeconds(10)));
        assertThat(store.calls()).isEqualTo(4);
    }

    @Test
    @DisplayName("a token bucket that reserves (2 per 2 s, max-wait 1.5 s): its refusal is kept only until a waiting "
            + "call could be reserved, max-wait before the refused call could pass")
    void reservingRefusalKeptUntilAReservationFits() {
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        Bucket partner = Bucket.of("partner", List.of(new Limit(2, Duration.ofSeconds(2))), OutagePolicy.FALLBACK,
                Algorithm.TOKEN_BUCKET, 0).withMaxWait(Duration.ofMillis(1_500));
        limiter.consume(partner, "k");
        limiter.consume(partner, "k");
        assertThat(limiter.consume(partner, "k").outcome()).as("reserved 1 s ahead").isEqualTo(Outcome.ALLOWED);
        Verdict refused = limiter.consume(partner, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.resetAfter()).as("passes without waiting in 2 s").isEqualTo(Duration.ofSeconds(2));
        long calls = store.calls();
        clock.advance(Duration.ofMillis(499));
        assertThat(limiter.consume(partner, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(store.calls()).as("refused from memory").isEqualTo(calls);
        clock.advance(Duration.ofMillis(1));
        assertThat(limiter.consume(partner, "k").outcome()).as("reserved 1.5 s ahead, by the store")
                .isEqualTo(Outcome.ALLOWED);
        assertThat(store.calls()).isEqualTo(calls + 1);
    }

    @Test
    @DisplayName("a reset through the cache clears the refusal at once")
    void localResetClearsTheRefusal() {
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        exhaust(limiter, login, "k");

        limiter.reset(login, "k");

        assertThat(limiter.consume(login, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.size(login)).isZero();
    }

    @Test
    @DisplayName("a reset on another replica is unseen here for at most max-age")
    void theAgeCapBoundsARemoteReset() {
        DenyCacheLimiter here = cache(Duration.ofSeconds(1), 100);
        DenyCacheLimiter otherReplica = cache(Duration.ofSeconds(1), 100);
        exhaust(here, login, "k");

        otherReplica.reset(login, "k");
        clock.advance(Duration.ofMillis(999));
        assertThat(here.consume(login, "k")).as("still refused from memory")
                .isEqualTo(Verdict.denied(2, Duration.ofMillis(9_001)));
        clock.advance(Duration.ofMillis(1));

        assertThat(here.consume(login, "k").outcome()).as("max-age reached: the store decides")
                .isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("with the window still running past max-age, the store is asked again and refuses again")
    void theAgeCapRefreshesFromTheStore() {
        DenyCacheLimiter limiter = cache(Duration.ofSeconds(1), 100);
        exhaust(limiter, login, "k");
        clock.advance(Duration.ofSeconds(1));

        assertThat(limiter.consume(login, "k")).isEqualTo(Verdict.denied(2, Duration.ofSeconds(9)));
        assertThat(store.calls()).isEqualTo(4);
        assertThat(limiter.consume(login, "k")).isEqualTo(Verdict.denied(2, Duration.ofSeconds(9)));
        assertThat(store.calls()).isEqualTo(4);
    }

    @Test
    @DisplayName("allowed and unavailable answers are never kept: each attempt reaches the store")
    void onlyRefusalsAreKept() {
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        Bucket roomy = Bucket.of("roomy", 1_000, Duration.ofSeconds(10), OutagePolicy.FALLBACK);
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.consume(roomy, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(store.calls()).isEqualTo(5);

        CountingLimiter down = new CountingLimiter(new UnavailableStore());
        DenyCacheLimiter overDown = new DenyCacheLimiter(down, new DenyCacheSettings(Duration.ofMinutes(1), 100),
                cachedDenials, this::nanos);
        for (int i = 0; i < 5; i++) {
            assertThat(overDown.consume(login, "k").outcome()).isEqualTo(Outcome.UNAVAILABLE);
        }
        assertThat(down.calls()).isEqualTo(5);
        assertThat(cachedDenials.of(roomy) + cachedDenials.of(login)).isZero();
    }

    @Test
    @DisplayName("a refusal by the per-process fallback is never kept: the store is asked at the next attempt")
    void fallbackRefusalsAreNotKept() {
        CountingLimiter down = new CountingLimiter(new UnavailableStore());
        Limiter chain = new OutagePolicyLimiter(new DenyCacheLimiter(down,
                new DenyCacheSettings(Duration.ofMinutes(1), 100), cachedDenials, this::nanos),
                Optional.of(new MemoryRateLimiter(clock, 100)), OutageListener.NONE);
        assertThat(exhaust(chain, login, "k").outcome()).as("the fallback refuses").isEqualTo(Outcome.DENIED);

        chain.consume(login, "k");

        assertThat(down.calls()).isEqualTo(4);
        assertThat(cachedDenials.of(login)).isZero();
    }

    @Test
    @DisplayName("past max-keys refusals of a bucket, new ones are not kept and none is evicted; other buckets apart")
    void boundedPerBucket() {
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 2);
        Bucket other = Bucket.of("other", 2, Duration.ofSeconds(10), OutagePolicy.FALLBACK);
        exhaust(limiter, login, "a");
        exhaust(limiter, login, "b");
        exhaust(limiter, login, "c");
        exhaust(limiter, other, "a");
        long calls = store.calls();

        limiter.consume(login, "a");
        limiter.consume(login, "b");
        limiter.consume(other, "a");
        assertThat(store.calls()).as("kept refusals").isEqualTo(calls);
        limiter.consume(login, "c");
        assertThat(store.calls()).as("the third key of a full bucket").isEqualTo(calls + 1);
        assertThat(limiter.size(login)).isEqualTo(2);
    }

    @Test
    @DisplayName("ended refusals are removed when looked up and by the sweep, which frees room for new ones")
    void endedRefusalsAreRemoved() {
        DenyCacheLimiter limiter = cache(Duration.ofSeconds(1), 2);
        exhaust(limiter, login, "a");
        exhaust(limiter, login, "b");
        clock.advance(Duration.ofSeconds(1));

        assertThat(limiter.sweep()).isEqualTo(2);
        assertThat(limiter.size(login)).isZero();
        exhaust(limiter, login, "c");
        assertThat(limiter.size(login)).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));
        limiter.consume(login, "c");
        assertThat(limiter.size(login)).as("removed on look-up, then kept anew").isEqualTo(1);
    }

    @Test
    @DisplayName("a refusal for cost 10 with 5 left does not refuse a cost-5 call (the store allows it); a cost-6 call, which the store would refuse, is refused from memory")
    void refusalForACostRefusesOnlyCallsThatNeedMore() {
        Bucket export = Bucket.of("export", 15, Duration.ofSeconds(60), OutagePolicy.FALLBACK);
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        limiter.consume(export, "k", 10);
        Verdict refused = limiter.consume(export, "k", 10);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isEqualTo(5);
        long calls = store.calls();

        Verdict six = limiter.consume(export, "k", 6);
        assertThat(six.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(six.remaining()).isEqualTo(5);
        assertThat(store.calls()).as("cost 6 > 5 left: refused from memory").isEqualTo(calls);

        Verdict five = limiter.consume(export, "k", 5);
        assertThat(five.outcome()).as("the store allows what the kept refusal does not cover")
                .isEqualTo(Outcome.ALLOWED);
        assertThat(store.calls()).isEqualTo(calls + 1);
        assertThat(limiter.consume(export, "k", 1).outcome()).isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(export, "k", 0).outcome()).as("a check needs one attempt left")
                .isEqualTo(Outcome.DENIED);
        assertThat(store.calls()).as("cost 1 and 0 need more than the 0 left: from memory").isEqualTo(calls + 2);
    }

    @Test
    @DisplayName("several windows: the kept refusal is the refusing window's; a refusal by the burst window answers from memory with every window, resets moved on")
    void refusalOfSeveralWindows() {
        Bucket projects = Bucket.of("projects", java.util.List.of(new Limit(2, Duration.ofSeconds(1)),
                new Limit(100, Duration.ofHours(1))), OutagePolicy.FALLBACK);
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        Verdict refused = exhaust(limiter, projects, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        long calls = store.calls();

        clock.advance(Duration.ofMillis(400));
        Verdict fromMemory = limiter.consume(projects, "k");
        assertThat(store.calls()).isEqualTo(calls);
        assertThat(fromMemory.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(fromMemory.resetAfter()).isEqualTo(Duration.ofMillis(600));
        assertThat(fromMemory.windows()).extracting(Verdict.Window::remaining).containsExactly(0L, 98L);
        assertThat(fromMemory.windows()).extracting(Verdict.Window::resetAfter)
                .containsExactly(Duration.ofMillis(600), Duration.ofHours(1).minusMillis(400));

        clock.advance(Duration.ofMillis(600));
        Verdict reopened = limiter.consume(projects, "k");
        assertThat(reopened.outcome()).as("the burst window ended: the store is asked").isEqualTo(Outcome.ALLOWED);
        assertThat(reopened.windows()).extracting(Verdict.Window::remaining).containsExactly(1L, 97L);
    }

    @Test
    @DisplayName("a token bucket's refusal is kept only until the refused call could pass, and only for calls needing at least as many tokens: a cheaper call, which the refill may allow sooner, goes to the store")
    void tokenBucketRefusalLastsUntilItsTokensAreBack() {
        Bucket reports = Bucket.of("reports", java.util.List.of(new Limit(10, Duration.ofSeconds(10))),
                OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        limiter.consume(reports, "k", 10);
        Verdict refused = limiter.consume(reports, "k", 3);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.resetAfter()).as("three tokens of 1 s").isEqualTo(Duration.ofSeconds(3));
        long calls = store.calls();

        assertThat(limiter.consume(reports, "k", 3).outcome()).isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(reports, "k", 4).outcome()).isEqualTo(Outcome.DENIED);
        assertThat(store.calls()).as("costs 3 and 4: from memory").isEqualTo(calls);

        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.consume(reports, "k", 1).outcome()).as("one token is back: the store allows a cost-1 call")
                .isEqualTo(Outcome.ALLOWED);
        assertThat(store.calls()).isEqualTo(calls + 1);

        clock.advance(Duration.ofSeconds(2));
        assertThat(limiter.consume(reports, "k", 2).outcome()).as("3 s after the refusal it has ended: two tokens back")
                .isEqualTo(Outcome.ALLOWED);
        assertThat(store.calls()).isEqualTo(calls + 2);
    }

    @Test
    @DisplayName("plans: a refusal kept under the bucket's limits is not served to the same key decided under a plan's "
            + "other limits: the store decides (and allows), the stale refusal is forgotten; a refusal under the plan "
            + "is then served to calls under the plan only")
    void refusalHoldsUnderItsOwnLimitsOnly() {
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        Bucket pro = login.withPlan("pro", java.util.List.of(new Limit(5, Duration.ofSeconds(10))), 0);
        assertThat(exhaust(limiter, login, "k").outcome()).as("2 of 2 spent").isEqualTo(Outcome.DENIED);
        assertThat(limiter.size(login)).isEqualTo(1);
        long calls = store.calls();

        Verdict upgraded = limiter.consume(pro, "k");
        assertThat(upgraded.outcome()).as("the store counts the key's 2 against pro's 5").isEqualTo(Outcome.ALLOWED);
        assertThat(upgraded.remaining()).isEqualTo(2);
        assertThat(store.calls()).isEqualTo(calls + 1);
        assertThat(cachedDenials.of(login)).as("nothing answered from memory").isZero();
        assertThat(limiter.size(login)).as("the stale refusal forgotten").isZero();

        assertThat(limiter.consume(pro, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(pro, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(pro, "k").outcome()).as("5 of 5: the store refuses").isEqualTo(Outcome.DENIED);
        calls = store.calls();
        assertThat(limiter.consume(pro, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(store.calls()).as("under pro again: from memory").isEqualTo(calls);
        assertThat(limiter.consume(login, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(store.calls()).as("under the bucket's own limits: the store, which refuses too").isEqualTo(calls + 1);
    }

    @Test
    @DisplayName("plans: limits equal to the refused ones, in another Bucket instance (a customer's explicit limits "
            + "made per call), are the same limits: the refusal is served from memory")
    void equalLimitsShareTheRefusal() {
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        exhaust(limiter, login, "k");
        Bucket same = login.withPlan(Bucket.EXPLICIT_PLAN,
                java.util.List.of(new Limit(2, Duration.ofSeconds(10))), 0);
        long calls = store.calls();

        assertThat(limiter.consume(same, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(store.calls()).isEqualTo(calls);
        Bucket burstier = Bucket.of("reports", java.util.List.of(new Limit(2, Duration.ofSeconds(10))),
                OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        limiter.consume(burstier, "k", 2);
        assertThat(limiter.consume(burstier, "k").outcome()).isEqualTo(Outcome.DENIED);
        calls = store.calls();
        Bucket moreBurst = burstier.withPlan("pro", burstier.limits(), 4);
        assertThat(limiter.consume(moreBurst, "k").outcome()).as("the same rate, a larger burst: the store decides")
                .isEqualTo(Outcome.ALLOWED);
        assertThat(store.calls()).isEqualTo(calls + 1);
    }

    @Test
    @DisplayName("live limits: a refusal kept under a fixed window is not served once the bucket counts as a sliding "
            + "window with the same limits (docs/live-limits.md): the store decides")
    void refusalHoldsUnderItsOwnAlgorithmOnly() {
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        assertThat(exhaust(limiter, login, "k").outcome()).isEqualTo(Outcome.DENIED);
        Bucket sliding = Bucket.of(login.name(), login.limits(), login.onOutage(), Algorithm.SLIDING_WINDOW,
                0);
        long calls = store.calls();
        limiter.consume(sliding, "k");
        assertThat(store.calls()).as("asked the store").isEqualTo(calls + 1);
        assertThat(cachedDenials.of(login)).isZero();
    }

    @Test
    @DisplayName("plans, several items: an item under other limits than its kept refusal goes to the store with the "
            + "items before it")
    void severalItemsUnderOtherLimits() {
        DenyCacheLimiter limiter = cache(Duration.ofMinutes(1), 100);
        Bucket orders = Bucket.of("orders", 100, Duration.ofSeconds(10), OutagePolicy.FALLBACK);
        exhaust(limiter, login, "k");
        Bucket pro = login.withPlan("pro", java.util.List.of(new Limit(5, Duration.ofSeconds(10))), 0);
        long calls = store.calls();

        Verdict[] verdicts = limiter.consumeAll(java.util.List.of(new dev.ratelimiter.spi.StoreItem(orders, "k", 1),
                new dev.ratelimiter.spi.StoreItem(pro, "k", 1)));
        assertThat(verdicts).extracting(Verdict::outcome).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED);
        assertThat(verdicts[1].remaining()).isEqualTo(2);
        assertThat(cachedDenials.of(login)).isZero();
        assertThat(store.calls()).as("one call of the store for both").isGreaterThan(calls);
    }
}
