package dev.ratelimiter.contract;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.internal.core.window.RefundingLimiter;
import dev.ratelimiter.internal.core.window.WindowVerdicts;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixed-window rules (docs/guide.md#fixed-windows) that every {@link RateLimiter} passes. A backend's test
 * extends this class and builds its limiter in {@link #newLimiter(InstantSource)}.
 *
 * <p>Time starts at a fixed instant on a {@link ManualClock}. A backend that times windows itself overrides
 * {@link #time()} with real waiting, and lists in {@link #casesNotRun()} each case it cannot run (those tagged
 * {@link #CONTROLLED_CLOCK}) with the reason, which the test report shows. Every case uses its own buckets and
 * keys, so a shared store needs no cleaning between cases.
 */
@ExtendWith(ContractCaseFilter.class)
public abstract class RateLimiterContract {

    /**
     * Tag of the cases that need a controlled clock: instants finer than a second, or a clock stepped back and
     * forth (which a store timed by its server's clock never sees from the test).
     */
    public static final String CONTROLLED_CLOCK = "controlled-clock";

    /** Where the manual clock starts: a whole second, so window ends fall on whole seconds. */
    protected static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    /**
     * The cases of token buckets, by method name: a store whose provider does not declare
     * {@link Algorithm#TOKEN_BUCKET} lists them in {@link #casesNotRun()}.
     */
    public static final java.util.Set<String> TOKEN_BUCKET_CASES = java.util.Set.of("tokenBucketBurstThenRefill",
            "tokenBucketRemainingAndResetAfter", "tokenBucketBurstOfOneSpacesCalls", "tokenBucketBurstAboveLimit",
            "tokenBucketCosts", "tokenBucketSeveralWindows", "tokenBucketReset", "tokenBucketConcurrentFirstCalls",
            "tokenBucketAmongSeveralBuckets", "changedAlgorithmStartsAfresh", "tokenBucketRefund",
            "tokenBucketPlanChangeKeepsCount", "tokenBucketLowerPlanAppliesToCountMade",
            "tokenBucketPlansKeepKeysApart", "tokenBucketPlanWithPerWindowLimits",
            "tokenBucketShortenedWindowOwesAtMostNewRefill", "tokenBucketWindowAddedStartsAfresh",
            "tokenBucketWindowLengthChangedAmongSeveral", "changedAlgorithmFromTokenOrSlidingStartsAfresh");

    /**
     * The cases of sliding windows, by method name: a store whose provider does not declare
     * {@link Algorithm#SLIDING_WINDOW} lists them in {@link #casesNotRun()}.
     */
    public static final java.util.Set<String> SLIDING_WINDOW_CASES = java.util.Set.of("slidingWindowWeighsPrevious",
            "slidingWindowRemainingAndResetAfter", "slidingWindowRetryAfterBeyondWindowEnd", "slidingWindowCosts",
            "slidingWindowSeveralWindows", "slidingWindowReset", "slidingWindowConcurrentFirstCalls",
            "slidingWindowAmongSeveralBuckets", "slidingWindowBoundaryBurst", "changedAlgorithmToSlidingStartsAfresh",
            "slidingWindowIdleKeyStartsAfresh", "slidingWindowRefund", "slidingWindowRefundLeavesPreviousAlone",
            "slidingWindowPlanChangeKeepsCount", "slidingWindowLowerPlanAppliesToCountMade",
            "slidingWindowPlansKeepKeysApart", "slidingWindowPlanWithPerWindowLimits",
            "slidingWindowShortenedWindowEndsWithinNewLength", "slidingWindowWindowAddedStartsAfresh",
            "slidingWindowSeveralWindowsKeepTheCountOfALengthKept", "changedAlgorithmFromTokenOrSlidingStartsAfresh");

    /**
     * The cases of refunds ({@code RateLimitStore.refund}, docs/guide.md#counting-failures-only), by method name: a
     * store whose provider does not declare {@code refunds()} lists them in {@link #casesNotRun()}.
     */
    public static final java.util.Set<String> REFUND_CASES = java.util.Set.of("refundGivesBackToTheWindowCounted",
            "refundNeverBelowZero", "refundLeavesALaterWindowAlone", "refundOfSeveralWindows",
            "refundOfSeveralBucketsInOneCall", "refundOfAKeyNeverCounted", "tokenBucketRefund", "slidingWindowRefund",
            "slidingWindowRefundLeavesPreviousAlone");

    protected ManualClock clock;
    protected RateLimiter limiter;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /**
     * Builds the limiter under test. Called before each case.
     *
     * @param clock the time source the limiter should read (ignored by a store-timed backend)
     */
    protected abstract RateLimiter newLimiter(InstantSource clock);

    /**
     * The cases this backend cannot run, by method name, each with the reason; reported as skipped with that
     * reason. Empty by default: a backend driven by the clock runs every case.
     */
    protected Map<String, String> casesNotRun() {
        return Map.of();
    }

    /** How time passes; the manual clock by default. */
    protected ContractTime time() {
        return ContractTime.manual(clock);
    }

    @BeforeEach
    void createLimiter() {
        clock = new ManualClock(START);
        limiter = newLimiter(clock);
    }

    /** A bucket unique to this case and run. */
    protected Bucket bucket(String name, long limit, Duration window) {
        return Bucket.of(name + "-" + run, limit, window);
    }

    /** A bucket of several windows unique to this case and run. */
    protected Bucket bucket(String name, Limit... limits) {
        return Bucket.of(name + "-" + run, List.of(limits), OutagePolicy.FALLBACK);
    }

    /** A token bucket unique to this case and run (burst 0: the shortest window's limit). */
    protected Bucket tokenBucket(String name, long burst, Limit... limits) {
        return Bucket.of(name + "-" + run, List.of(limits), OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET,
                burst);
    }

    /** A sliding-window bucket unique to this case and run. */
    protected Bucket slidingWindow(String name, Limit... limits) {
        return Bucket.of(name + "-" + run, List.of(limits), OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW,
                0);
    }

    private static Limit limit(long limit, Duration window) {
        return new Limit(limit, window);
    }

    /** Each window's remaining attempts, shortest window first. */
    private static List<Long> remaining(Verdict verdict) {
        return verdict.windows().stream().map(Verdict.Window::remaining).toList();
    }

    @Test
    @DisplayName("limit 5: five attempts allowed with remaining 4, 3, 2, 1, 0; the sixth and later denied")
    void fiveAllowedThenDenied() {
        Bucket bucket = bucket("five", 5, Duration.ofSeconds(60));
        List<Long> remaining = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Verdict verdict = limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(verdict.limit()).isEqualTo(5);
            remaining.add(verdict.remaining());
        }
        assertThat(remaining).containsExactly(4L, 3L, 2L, 1L, 0L);
        for (int i = 0; i < 3; i++) {
            Verdict denied = limiter.consume(bucket, "k");
            assertThat(denied.outcome()).isEqualTo(Outcome.DENIED);
            assertThat(denied.remaining()).isZero();
        }
    }

    @Test
    @DisplayName("the first attempt's window lasts the whole window")
    void firstAttemptResetsAfterWholeWindow() {
        Bucket bucket = bucket("first", 3, Duration.ofSeconds(2));
        Verdict first = limiter.consume(bucket, "k");
        assertThat(first.resetAfter()).isLessThanOrEqualTo(Duration.ofSeconds(2)).isPositive();
        assertThat(first.retryAfterSeconds()).isEqualTo(2);
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("the window ends exactly `window` after the first attempt; the attempt at that instant opens a new window with count 1")
    void windowEndsExactlyAfterWindow() {
        Bucket bucket = bucket("edge", 2, Duration.ofSeconds(60));
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        time().advance(Duration.ofSeconds(60).minusMillis(1));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        time().advance(Duration.ofMillis(1));
        Verdict reopened = limiter.consume(bucket, "k");
        assertThat(reopened.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(reopened.remaining()).isEqualTo(1); // count 1 of limit 2
        assertThat(reopened.resetAfter()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    @DisplayName("a new window opens once the old one has passed")
    void newWindowAfterWindowPassed() {
        Bucket bucket = bucket("pass", 1, Duration.ofSeconds(1));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        time().advance(Duration.ofMillis(1100));
        Verdict reopened = limiter.consume(bucket, "k");
        assertThat(reopened.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(reopened.remaining()).isZero();
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("denied attempts never extend the window")
    void deniedAttemptsDoNotExtendWindow() {
        Bucket bucket = bucket("extend", 1, Duration.ofSeconds(60));
        limiter.consume(bucket, "k");
        time().advance(Duration.ofSeconds(30));
        Verdict denied = limiter.consume(bucket, "k");
        assertThat(denied.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(denied.resetAfter()).isEqualTo(Duration.ofSeconds(30));
        time().advance(Duration.ofSeconds(29));
        assertThat(limiter.consume(bucket, "k").resetAfter()).isEqualTo(Duration.ofSeconds(1));
        time().advance(Duration.ofSeconds(1));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("5 per 60 s exhausted at T, clock stepped back to T - 3600 s: Retry-After is at most 60, and waiting it lets the client in")
    void clockSteppedBackKeepsNoWindowShutLonger() {
        Bucket bucket = bucket("back", 5, Duration.ofSeconds(60));
        for (int i = 0; i < 5; i++) {
            limiter.consume(bucket, "k");
        }
        clock.advance(Duration.ofSeconds(-3600));
        Verdict afterStep = limiter.consume(bucket, "k");
        assertThat(afterStep.resetAfter()).isLessThanOrEqualTo(Duration.ofSeconds(60));
        clock.advance(Duration.ofSeconds(afterStep.retryAfterSeconds()));
        assertThat(limiter.consume(bucket, "k").outcome()).as("after waiting Retry-After").isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("clock jumps forward an hour and back: the window opened in between still ends 60 s of elapsed time after it opened")
    void clockJumpingBothWaysKeepsNoWindowShutLonger() {
        Bucket bucket = bucket("jump", 2, Duration.ofSeconds(60));
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        clock.advance(Duration.ofSeconds(3600));
        assertThat(limiter.consume(bucket, "k").outcome()).as("a jump forward ends the window early")
                .isEqualTo(Outcome.ALLOWED);
        limiter.consume(bucket, "k");
        clock.advance(Duration.ofSeconds(20));
        assertThat(limiter.consume(bucket, "k").resetAfter()).isEqualTo(Duration.ofSeconds(40));
        clock.advance(Duration.ofSeconds(-3600));
        Verdict afterStep = limiter.consume(bucket, "k");
        assertThat(afterStep.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(afterStep.resetAfter()).isLessThanOrEqualTo(Duration.ofSeconds(40));
        clock.advance(Duration.ofSeconds(40));
        assertThat(limiter.consume(bucket, "k").outcome()).as("60 s of elapsed time after the window opened")
                .isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("keys of one bucket are counted apart")
    void keysAreIndependent() {
        Bucket bucket = bucket("keys", 1, Duration.ofSeconds(60));
        assertThat(limiter.consume(bucket, "a").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "a").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(bucket, "b").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("one key in two buckets is counted apart")
    void bucketsAreIndependent() {
        Bucket one = bucket("one", 1, Duration.ofSeconds(60));
        Bucket two = bucket("two", 1, Duration.ofSeconds(60));
        assertThat(limiter.consume(one, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(one, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(two, "k").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("reset clears one key and leaves the others")
    void resetClearsOneKey() {
        Bucket bucket = bucket("reset", 2, Duration.ofSeconds(60));
        limiter.consume(bucket, "a");
        limiter.consume(bucket, "a");
        limiter.consume(bucket, "b");
        limiter.reset(bucket, "a");
        Verdict afterReset = limiter.consume(bucket, "a");
        assertThat(afterReset.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(afterReset.remaining()).isEqualTo(1);
        Verdict other = limiter.consume(bucket, "b");
        assertThat(other.remaining()).isZero();
    }

    @Test
    @DisplayName("reset is idempotent and safe for a key never seen")
    void resetIsIdempotent() {
        Bucket bucket = bucket("idem", 2, Duration.ofSeconds(60));
        limiter.reset(bucket, "never-seen");
        limiter.consume(bucket, "k");
        limiter.reset(bucket, "k");
        limiter.reset(bucket, "k");
        assertThat(limiter.consume(bucket, "k").remaining()).isEqualTo(1);
        assertThat(limiter.consume(bucket, "never-seen").remaining()).isEqualTo(1);
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("60 s window exhausted at t = 10.3 s: Retry-After 50; at t = 59.6 s it is 1")
    void retryAfterRoundsUp() {
        Bucket bucket = bucket("retry", 3, Duration.ofSeconds(60));
        limiter.consume(bucket, "k");
        time().advance(Duration.ofMillis(10_300));
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        Verdict denied = limiter.consume(bucket, "k");
        assertThat(denied.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(denied.retryAfterSeconds()).isEqualTo(50);
        time().advance(Duration.ofMillis(59_600 - 10_300));
        assertThat(limiter.consume(bucket, "k").retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("Retry-After stays within 1..window at every instant of the window")
    void retryAfterWithinOneToWindow() {
        Bucket bucket = bucket("bounds", 1, Duration.ofSeconds(60));
        limiter.consume(bucket, "k");
        for (int step = 0; step < 600; step++) {
            Verdict verdict = limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.DENIED);
            assertThat(verdict.retryAfterSeconds()).isBetween(1L, 60L);
            time().advance(Duration.ofMillis(99));
        }
    }

    @Test
    @DisplayName("16 threads x 2 000 attempts on one key admit exactly the limit")
    void concurrentAttemptsAdmitExactlyLimit() throws Exception {
        Bucket bucket = bucket("race", 1_000, Duration.ofSeconds(60));
        int threads = 16;
        int attempts = 2_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Callable<Integer> worker = () -> {
                    start.await();
                    int allowed = 0;
                    for (int i = 0; i < attempts; i++) {
                        Verdict verdict = limiter.consume(bucket, "hot");
                        assertThat(verdict.outcome()).isNotEqualTo(Outcome.UNAVAILABLE);
                        if (verdict.isAllowed()) {
                            allowed++;
                        }
                    }
                    return allowed;
                };
                results.add(pool.submit(worker));
            }
            int admitted = 0;
            for (Future<Integer> result : results) {
                admitted += result.get(2, TimeUnit.MINUTES);
            }
            assertThat(admitted).isEqualTo(1_000);
        } finally {
            pool.shutdownNow();
        }
    }
    @Test
    @DisplayName("several windows: a refusal by the 1 s burst window spends nothing of the hourly window, and the burst window reopens on its own")
    void burstRefusalSpendsNoSustainedQuota() {
        Bucket bucket = bucket("burst", limit(3, Duration.ofSeconds(1)), limit(5, Duration.ofHours(1)));
        List<List<Long>> allowed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Verdict verdict = limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            allowed.add(remaining(verdict));
        }
        assertThat(allowed).containsExactly(List.of(2L, 4L), List.of(1L, 3L), List.of(0L, 2L));
        for (int i = 0; i < 4; i++) {
            Verdict refused = limiter.consume(bucket, "k");
            assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
            assertThat(refused.limit()).as("the refusing window's limit").isEqualTo(3);
            assertThat(remaining(refused)).as("refusals count in no window").containsExactly(0L, 2L);
            assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        }
        time().advance(Duration.ofMillis(1_100));
        Verdict reopened = limiter.consume(bucket, "k");
        assertThat(reopened.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(remaining(reopened)).containsExactly(2L, 1L);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        Verdict hourly = limiter.consume(bucket, "k");
        assertThat(hourly.outcome()).as("the hourly window is spent").isEqualTo(Outcome.DENIED);
        assertThat(hourly.limit()).isEqualTo(5);
        assertThat(hourly.remaining()).isZero();
        assertThat(hourly.resetAfter()).isGreaterThan(Duration.ofMinutes(59)).isLessThanOrEqualTo(Duration.ofHours(1));
        assertThat(remaining(hourly)).containsExactly(1L, 0L);
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("several windows end independently, each exactly its length after it opened")
    void windowsResetIndependently() {
        Bucket bucket = bucket("apart", limit(2, Duration.ofSeconds(10)), limit(3, Duration.ofSeconds(60)));
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        Verdict burst = limiter.consume(bucket, "k");
        assertThat(burst.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(burst.resetAfter()).isEqualTo(Duration.ofSeconds(10));
        time().advance(Duration.ofSeconds(10));
        Verdict third = limiter.consume(bucket, "k");
        assertThat(third.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(third.windows()).extracting(Verdict.Window::resetAfter)
                .containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(50));
        assertThat(remaining(third)).containsExactly(1L, 0L);
        time().advance(Duration.ofSeconds(49));
        Verdict sustained = limiter.consume(bucket, "k");
        assertThat(sustained.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(sustained.resetAfter()).as("the sustained window refuses").isEqualTo(Duration.ofSeconds(1));
        assertThat(sustained.windows().get(0).resetAfter()).as("the burst window has ended: a new one would open")
                .isEqualTo(Duration.ofSeconds(10));
        time().advance(Duration.ofSeconds(1));
        Verdict reopened = limiter.consume(bucket, "k");
        assertThat(reopened.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(remaining(reopened)).containsExactly(1L, 2L);
        assertThat(reopened.windows()).extracting(Verdict.Window::resetAfter)
                .containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(60));
    }

    @Test
    @DisplayName("reset clears every window of the key")
    void resetClearsEveryWindow() {
        Bucket bucket = bucket("reset-all", limit(1, Duration.ofSeconds(30)), limit(2, Duration.ofHours(1)));
        limiter.consume(bucket, "k");
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        limiter.reset(bucket, "k");
        Verdict afterReset = limiter.consume(bucket, "k");
        assertThat(afterReset.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(remaining(afterReset)).containsExactly(0L, 1L);
    }

    @Test
    @DisplayName("cost: a cost-10 call with 5 left is refused and the 5 remain; a cost-5 call then takes them")
    void refusedCostConsumesNothing() {
        Bucket bucket = bucket("cost", 15, Duration.ofSeconds(60));
        assertThat(limiter.consume(bucket, "k", 10).remaining()).isEqualTo(5);
        Verdict refused = limiter.consume(bucket, "k", 10);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isEqualTo(5);
        Verdict five = limiter.consume(bucket, "k", 5);
        assertThat(five.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(five.remaining()).isZero();
        assertThat(limiter.consume(bucket, "k", 1).outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("cost 0 checks without counting: allowed while a cost-1 call would be, refused once none is left")
    void costZeroChecks() {
        Bucket bucket = bucket("check", 2, Duration.ofSeconds(60));
        for (int i = 0; i < 3; i++) {
            Verdict check = limiter.consume(bucket, "k", 0);
            assertThat(check.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(check.remaining()).isEqualTo(2);
        }
        limiter.consume(bucket, "k");
        assertThat(limiter.consume(bucket, "k", 0).remaining()).isEqualTo(1);
        assertThat(limiter.consume(bucket, "k").remaining()).as("the checks counted nothing").isZero();
        Verdict refused = limiter.consume(bucket, "k", 0);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.retryAfterSeconds()).isBetween(1L, 60L);
    }

    @Test
    @DisplayName("cost with several windows: a cost above any window's remaining is refused and counted in none")
    void costAboveRemainingInAnyWindow() {
        Bucket bucket = bucket("cost-windows", limit(5, Duration.ofSeconds(60)), limit(8, Duration.ofHours(1)));
        assertThat(remaining(limiter.consume(bucket, "k", 4))).containsExactly(1L, 4L);
        Verdict refused = limiter.consume(bucket, "k", 2);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.limit()).isEqualTo(5);
        assertThat(refused.remaining()).isEqualTo(1);
        assertThat(remaining(refused)).containsExactly(1L, 4L);
        Verdict one = limiter.consume(bucket, "k", 1);
        assertThat(one.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(remaining(one)).containsExactly(0L, 3L);
        Verdict check = limiter.consume(bucket, "k", 0);
        assertThat(check.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(remaining(check)).containsExactly(0L, 3L);
    }

    @Test
    @DisplayName("16 threads x 500 calls on one key of a bucket of two windows admit exactly the smaller limit")
    void concurrentAttemptsOnSeveralWindows() throws Exception {
        Bucket bucket = bucket("race-windows", limit(300, Duration.ofSeconds(60)), limit(200, Duration.ofHours(1)));
        int threads = 16;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    int allowed = 0;
                    for (int i = 0; i < 500; i++) {
                        Verdict verdict = limiter.consume(bucket, "hot");
                        assertThat(verdict.outcome()).isNotEqualTo(Outcome.UNAVAILABLE);
                        allowed += verdict.isAllowed() ? 1 : 0;
                    }
                    return allowed;
                }));
            }
            int admitted = 0;
            for (Future<Integer> result : results) {
                admitted += result.get(2, TimeUnit.MINUTES);
            }
            assertThat(admitted).isEqualTo(200);
            assertThat(remaining(limiter.consume(bucket, "hot", 0))).containsExactly(100L, 0L);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("several buckets in one call (a method's @RateLimited): decided in order and each counted; the "
            + "first refusal stops the rest, which are not counted, and the earlier ones keep their count")
    void severalBucketsInOneCall() {
        Bucket first = bucket("batch-first", 3, Duration.ofSeconds(60));
        Bucket second = bucket("batch-second", 1, Duration.ofSeconds(60));
        Bucket third = bucket("batch-third", 3, Duration.ofSeconds(60));
        List<StoreItem> items = List.of(new StoreItem(first, "k", 1), new StoreItem(second, "k", 1),
                new StoreItem(third, "k", 1));

        Verdict[] allowed = BatchingLimiter.consumeAll(limiter, items);

        assertThat(allowed).extracting(Verdict::outcome)
                .containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.ALLOWED);
        assertThat(allowed).extracting(Verdict::remaining).containsExactly(2L, 0L, 2L);

        Verdict[] refused = BatchingLimiter.consumeAll(limiter, items);

        assertThat(refused).extracting(Verdict::outcome).containsExactly(Outcome.ALLOWED, Outcome.DENIED);
        assertThat(refused[0].remaining()).isEqualTo(1);
        assertThat(limiter.consume(first, "k", 0).remaining()).as("the earlier bucket keeps its count")
                .isEqualTo(1);
        assertThat(limiter.consume(third, "k", 0).remaining()).as("the later bucket was not counted")
                .isEqualTo(2);
    }

    @Test
    @DisplayName("several buckets in one call, with several windows and costs: each item counts its cost in each of "
            + "its windows, a check (cost 0) counts nothing, and a cost that does not fit refuses, counting nothing "
            + "in any window nor in the later buckets")
    void severalBucketsWithWindowsAndCosts() {
        Bucket windows = bucket("batch-windows", limit(3, Duration.ofSeconds(10)), limit(5, Duration.ofSeconds(60)));
        Bucket plain = bucket("batch-plain", 10, Duration.ofSeconds(60));

        Verdict[] allowed = BatchingLimiter.consumeAll(limiter, List.of(new StoreItem(windows, "k", 2),
                new StoreItem(plain, "k", 0), new StoreItem(plain, "k", 4)));

        assertThat(allowed).extracting(Verdict::outcome)
                .containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.ALLOWED);
        assertThat(remaining(allowed[0])).containsExactly(1L, 3L);
        assertThat(allowed[1].remaining()).as("the check counted nothing").isEqualTo(10);
        assertThat(allowed[2].remaining()).isEqualTo(6);

        Verdict[] refused = BatchingLimiter.consumeAll(limiter, List.of(new StoreItem(windows, "k", 2),
                new StoreItem(plain, "k", 1)));

        assertThat(refused).extracting(Verdict::outcome).containsExactly(Outcome.DENIED);
        assertThat(remaining(limiter.consume(windows, "k", 0))).as("the refused cost counted in no window")
                .containsExactly(1L, 3L);
        assertThat(limiter.consume(plain, "k", 0).remaining()).as("the later bucket was not counted").isEqualTo(6);
    }

    // Token buckets (docs/guide.md#token-buckets). Intervals of at least 500 ms, so a store timed by its own clock
    // runs these cases in real time: the milliseconds a burst of calls takes never refill a whole token.

    @Test
    @DisplayName("token bucket 4 per 2 s: a burst of 4 (remaining 3, 2, 1, 0), then refused; each 500 ms refills "
            + "exactly one token, and a second two")
    void tokenBucketBurstThenRefill() {
        Bucket bucket = tokenBucket("tb-refill", 0, limit(4, Duration.ofSeconds(2)));
        List<Long> remaining = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Verdict verdict = limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            remaining.add(verdict.remaining());
        }
        assertThat(remaining).containsExactly(3L, 2L, 1L, 0L);
        Verdict refused = limiter.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.resetAfter()).as("until one token is back").isPositive()
                .isLessThanOrEqualTo(Duration.ofMillis(500));
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);

        time().advance(Duration.ofMillis(500));
        assertThat(admitted(bucket, 4)).as("after 500 ms").isEqualTo(1);
        time().advance(Duration.ofSeconds(1));
        assertThat(admitted(bucket, 4)).as("after one more second").isEqualTo(2);
    }

    @Test
    @DisplayName("token bucket: an allowed call says the whole tokens left and the time until the bucket is full")
    void tokenBucketRemainingAndResetAfter() {
        Bucket bucket = tokenBucket("tb-reset", 0, limit(10, Duration.ofSeconds(10)));
        Verdict first = limiter.consume(bucket, "k");
        assertThat(first.limit()).isEqualTo(10);
        assertThat(first.remaining()).isEqualTo(9);
        assertThat(first.resetAfter()).as("one token's interval").isPositive()
                .isLessThanOrEqualTo(Duration.ofSeconds(1)).isGreaterThan(Duration.ofMillis(900));
        Verdict third = limiter.consume(bucket, "k", 2);
        assertThat(third.remaining()).isEqualTo(7);
        assertThat(third.resetAfter()).isLessThanOrEqualTo(Duration.ofSeconds(3)).isGreaterThan(Duration.ofMillis(2_800));
    }

    @Test
    @DisplayName("token bucket with a burst of 1 (minimum spacing): one call per interval, the next refused until then")
    void tokenBucketBurstOfOneSpacesCalls() {
        Bucket bucket = tokenBucket("tb-spacing", 1, limit(60, Duration.ofSeconds(60)));
        assertThat(limiter.consume(bucket, "k").remaining()).isZero();
        Verdict refused = limiter.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        time().advance(Duration.ofSeconds(1));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("token bucket with a burst above its limit: the burst is admitted at once, then the rate")
    void tokenBucketBurstAboveLimit() {
        Bucket bucket = tokenBucket("tb-big", 5, limit(2, Duration.ofSeconds(2)));
        assertThat(limiter.consume(bucket, "k").remaining()).isEqualTo(4);
        assertThat(admitted(bucket, 10)).isEqualTo(4);
        time().advance(Duration.ofSeconds(1));
        assertThat(admitted(bucket, 10)).isEqualTo(1);
    }

    @Test
    @DisplayName("token bucket costs: a call takes its cost; a refused cost takes nothing, says the tokens left and "
            + "waits for the tokens it lacks; a smaller cost that fits passes; cost 0 checks")
    void tokenBucketCosts() {
        Bucket bucket = tokenBucket("tb-costs", 0, limit(10, Duration.ofSeconds(10)));
        assertThat(limiter.consume(bucket, "k", 0).remaining()).as("a check on a full bucket").isEqualTo(10);
        assertThat(limiter.consume(bucket, "k", 4).remaining()).isEqualTo(6);
        assertThat(limiter.consume(bucket, "k", 4).remaining()).isEqualTo(2);
        Verdict refused = limiter.consume(bucket, "k", 4);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isEqualTo(2);
        assertThat(refused.resetAfter()).as("two tokens of 1 s are missing").isGreaterThan(Duration.ofMillis(1_800))
                .isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertThat(refused.retryAfterSeconds()).isEqualTo(2);
        assertThat(limiter.consume(bucket, "k", 2).remaining()).isZero();
        Verdict check = limiter.consume(bucket, "k", 0);
        assertThat(check.outcome()).as("a check of an empty bucket").isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(bucket, "k", 0).outcome()).as("and it took nothing").isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("token bucket of several windows: every window must have the tokens; a refusal by one takes from none, "
            + "and its Retry-After is when the refusing window has them")
    void tokenBucketSeveralWindows() {
        Bucket bucket = tokenBucket("tb-windows", 0, limit(2, Duration.ofSeconds(1)), limit(3, Duration.ofSeconds(60)));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        Verdict second = limiter.consume(bucket, "k");
        assertThat(remaining(second)).containsExactly(0L, 1L);
        Verdict refusedByBurst = limiter.consume(bucket, "k");
        assertThat(refusedByBurst.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refusedByBurst.retryAfterSeconds()).isEqualTo(1);
        assertThat(remaining(refusedByBurst)).as("the refusal took nothing from the minute's window")
                .containsExactly(0L, 1L);

        time().advance(Duration.ofSeconds(1));
        Verdict third = limiter.consume(bucket, "k");
        assertThat(third.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(remaining(third).get(1)).isZero();
        Verdict refusedBySustained = limiter.consume(bucket, "k");
        assertThat(refusedBySustained.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refusedBySustained.retryAfterSeconds()).as("a token of the 60 s window: 20 s after the first call")
                .isBetween(18L, 20L);
        assertThat(refusedBySustained.windows()).hasSize(2);
    }

    @Test
    @DisplayName("token bucket: reset fills one key's bucket and no other")
    void tokenBucketReset() {
        Bucket bucket = tokenBucket("tb-resetkey", 0, limit(2, Duration.ofSeconds(60)));
        limiter.consume(bucket, "a", 2);
        limiter.consume(bucket, "b", 2);
        limiter.reset(bucket, "a");
        assertThat(limiter.consume(bucket, "a").remaining()).isEqualTo(1);
        assertThat(limiter.consume(bucket, "b").outcome()).isEqualTo(Outcome.DENIED);
        limiter.reset(bucket, "never-seen");
    }

    @Test
    @DisplayName("token bucket: 200 concurrent first calls on one key admit exactly its capacity")
    void tokenBucketConcurrentFirstCalls() throws Exception {
        assertThat(admittedOfConcurrentFirstCalls(tokenBucket("tb-race", 50, limit(50, Duration.ofHours(1)))))
                .isEqualTo(50);
    }

    @Test
    @DisplayName("several buckets in one call, a token bucket among fixed windows: each decided by its algorithm, the "
            + "first refusal stops the rest")
    void tokenBucketAmongSeveralBuckets() {
        Bucket fixed = bucket("tb-mixed-fixed", 5, Duration.ofSeconds(60));
        Bucket tokens = tokenBucket("tb-mixed-tokens", 2, limit(4, Duration.ofSeconds(60)));
        Bucket later = bucket("tb-mixed-later", 5, Duration.ofSeconds(60));
        List<StoreItem> items = List.of(new StoreItem(fixed, "k", 1), new StoreItem(tokens, "k", 2),
                new StoreItem(later, "k", 1));

        Verdict[] allowed = BatchingLimiter.consumeAll(limiter, items);
        assertThat(allowed).extracting(Verdict::remaining).containsExactly(4L, 0L, 4L);

        Verdict[] refused = BatchingLimiter.consumeAll(limiter, items);
        assertThat(refused).extracting(Verdict::outcome).containsExactly(Outcome.ALLOWED, Outcome.DENIED);
        assertThat(refused[1].retryAfterSeconds()).as("two tokens of 15 s").isBetween(29L, 30L);
        assertThat(limiter.consume(later, "k", 0).remaining()).as("the later bucket was not counted").isEqualTo(4);
    }

    @Test
    @DisplayName("a bucket whose algorithm changes starts afresh: a spent fixed window is a full token bucket")
    void changedAlgorithmStartsAfresh() {
        Bucket fixed = bucket("algorithm-change", 2, Duration.ofSeconds(60));
        Bucket tokens = Bucket.of(fixed.name(), fixed.limits(), OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET,
                0);
        limiter.consume(fixed, "k", 2);
        assertThat(limiter.consume(fixed, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(tokens, "k").remaining()).isEqualTo(1);
        assertThat(limiter.consume(tokens, "k").remaining()).isZero();
    }

    // Sliding windows (docs/guide.md#sliding-windows). Windows of at least 2 s, steps of whole seconds and limits
    // whose weighted counts change by whole attempts per step, so a store timed by its own clock runs these cases in
    // real time: the milliseconds the calls take only lower a weighted count by a fraction, which rounds up as before.

    @Test
    @DisplayName("sliding window 4 per 4 s: 4 allowed, refused; at the next window the previous 4 still weigh 4, a "
            + "second later 3, two more seconds later 1 (with 1 counted meanwhile)")
    void slidingWindowWeighsPrevious() {
        Bucket bucket = slidingWindow("sw-weigh", limit(4, Duration.ofSeconds(4)));
        List<Long> remaining = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Verdict verdict = limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(verdict.limit()).isEqualTo(4);
            remaining.add(verdict.remaining());
        }
        assertThat(remaining).containsExactly(3L, 2L, 1L, 0L);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);

        time().advance(Duration.ofSeconds(4));
        assertThat(admitted(bucket, 4)).as("the next window, the previous one's 4 at full weight").isZero();
        time().advance(Duration.ofSeconds(1));
        assertThat(admitted(bucket, 4)).as("a quarter of the window later: 4 x 3/4 = 3 still count").isEqualTo(1);
        time().advance(Duration.ofSeconds(2));
        assertThat(admitted(bucket, 4)).as("3/4 of the window later: 4 x 1/4 = 1, and this window's 1")
                .isEqualTo(2);
    }

    @Test
    @DisplayName("sliding window: an allowed call says the attempts left and the time until every counted call has "
            + "slid out, the current window's end plus one window length")
    void slidingWindowRemainingAndResetAfter() {
        Bucket bucket = slidingWindow("sw-reset", limit(10, Duration.ofSeconds(10)));
        Verdict first = limiter.consume(bucket, "k");
        assertThat(first.limit()).isEqualTo(10);
        assertThat(first.remaining()).isEqualTo(9);
        assertThat(first.resetAfter()).isGreaterThan(Duration.ofSeconds(19)).isLessThanOrEqualTo(Duration.ofSeconds(20));
        assertThat(limiter.consume(bucket, "k", 0).remaining()).as("a check counts nothing").isEqualTo(9);
    }

    @Test
    @DisplayName("sliding window 2 per 2 s, spent: Retry-After is 3 s, past the current window's end, and true: "
            + "refused at that end, allowed a second later")
    void slidingWindowRetryAfterBeyondWindowEnd() {
        Bucket bucket = slidingWindow("sw-retry", limit(2, Duration.ofSeconds(2)));
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        Verdict refused = limiter.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.resetAfter()).as("past the window's end, 2 s away").isGreaterThan(Duration.ofMillis(2_500))
                .isLessThanOrEqualTo(Duration.ofSeconds(3));
        assertThat(refused.retryAfterSeconds()).isEqualTo(3);

        time().advance(Duration.ofSeconds(2));
        assertThat(limiter.consume(bucket, "k").outcome()).as("the window ended, its 2 weigh 2").isEqualTo(
                Outcome.DENIED);
        time().advance(Duration.ofSeconds(1));
        assertThat(limiter.consume(bucket, "k").outcome()).as("at Retry-After").isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("sliding window costs: a call counts its cost; a refused cost counts nothing and waits until it "
            + "fits; a smaller cost that fits passes; cost 0 checks")
    void slidingWindowCosts() {
        Bucket bucket = slidingWindow("sw-costs", limit(10, Duration.ofSeconds(10)));
        assertThat(limiter.consume(bucket, "k", 0).remaining()).as("a check on a quiet key").isEqualTo(10);
        assertThat(limiter.consume(bucket, "k", 4).remaining()).isEqualTo(6);
        assertThat(limiter.consume(bucket, "k", 4).remaining()).isEqualTo(2);
        Verdict refused = limiter.consume(bucket, "k", 4);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isEqualTo(2);
        assertThat(refused.retryAfterSeconds()).as("the next window, once 8 x r / 10 s <= 6: r = 7.5 s")
                .isEqualTo(13);
        assertThat(limiter.consume(bucket, "k", 2).remaining()).isZero();
        assertThat(limiter.consume(bucket, "k", 0).outcome()).as("a check of a spent window").isEqualTo(
                Outcome.DENIED);
    }

    @Test
    @DisplayName("sliding window of several windows: every window must have room; a refusal by one counts in none, "
            + "and its Retry-After is when the last refusing window has room")
    void slidingWindowSeveralWindows() {
        Bucket bucket = slidingWindow("sw-windows", limit(2, Duration.ofSeconds(2)), limit(3, Duration.ofSeconds(60)));
        limiter.consume(bucket, "k");
        Verdict second = limiter.consume(bucket, "k");
        assertThat(remaining(second)).containsExactly(0L, 1L);
        Verdict refusedByBurst = limiter.consume(bucket, "k");
        assertThat(refusedByBurst.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refusedByBurst.retryAfterSeconds()).isEqualTo(3);
        assertThat(remaining(refusedByBurst)).as("the refusal counted nothing in the minute's window")
                .containsExactly(0L, 1L);

        time().advance(Duration.ofSeconds(3));
        Verdict third = limiter.consume(bucket, "k");
        assertThat(third.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(remaining(third)).containsExactly(0L, 0L);
        Verdict refusedBySustained = limiter.consume(bucket, "k");
        assertThat(refusedBySustained.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refusedBySustained.retryAfterSeconds())
                .as("the minute's next window, once 3 x r / 60 s <= 2: 57 s + 20 s").isBetween(76L, 77L);
        assertThat(refusedBySustained.windows()).hasSize(2);
    }

    @Test
    @DisplayName("sliding window: reset clears one key's windows and no other")
    void slidingWindowReset() {
        Bucket bucket = slidingWindow("sw-resetkey", limit(2, Duration.ofSeconds(60)));
        limiter.consume(bucket, "a", 2);
        limiter.consume(bucket, "b", 2);
        limiter.reset(bucket, "a");
        assertThat(limiter.consume(bucket, "a").remaining()).isEqualTo(1);
        assertThat(limiter.consume(bucket, "b").outcome()).isEqualTo(Outcome.DENIED);
        limiter.reset(bucket, "never-seen");
    }

    @Test
    @DisplayName("sliding window: 200 concurrent first calls on one key admit exactly its limit")
    void slidingWindowConcurrentFirstCalls() throws Exception {
        assertThat(admittedOfConcurrentFirstCalls(slidingWindow("sw-race", limit(50, Duration.ofHours(1)))))
                .isEqualTo(50);
    }

    @Test
    @DisplayName("several buckets in one call, a sliding window among a fixed window and a token bucket: each "
            + "decided by its algorithm, the first refusal stops the rest")
    void slidingWindowAmongSeveralBuckets() {
        Bucket fixed = bucket("sw-mixed-fixed", 5, Duration.ofSeconds(60));
        Bucket sliding = slidingWindow("sw-mixed-sliding", limit(2, Duration.ofSeconds(60)), limit(4,
                Duration.ofHours(1)));
        Bucket later = tokenBucket("sw-mixed-later", 0, limit(5, Duration.ofSeconds(60)));
        List<StoreItem> items = List.of(new StoreItem(fixed, "k", 1), new StoreItem(sliding, "k", 2),
                new StoreItem(later, "k", 1));

        Verdict[] allowed = BatchingLimiter.consumeAll(limiter, items);
        assertThat(allowed).extracting(Verdict::remaining).containsExactly(4L, 0L, 4L);
        assertThat(remaining(allowed[1])).containsExactly(0L, 2L);

        Verdict[] refused = BatchingLimiter.consumeAll(limiter, items);
        assertThat(refused).extracting(Verdict::outcome).containsExactly(Outcome.ALLOWED, Outcome.DENIED);
        assertThat(refused[1].retryAfterSeconds()).as("both calls of the minute's window slid out: 2 minutes")
                .isBetween(119L, 120L);
        assertThat(limiter.consume(later, "k", 0).remaining()).as("the later bucket was not counted").isEqualTo(4);
    }

    @Test
    @DisplayName("sliding window 8 per 4 s, the previous window filled at its end: across the boundary it admits 13 "
            + "in one window length (a fixed window: 15), never 8 more at once")
    void slidingWindowBoundaryBurst() {
        Bucket bucket = slidingWindow("sw-boundary", limit(8, Duration.ofSeconds(4)));
        limiter.consume(bucket, "k");
        time().advance(Duration.ofSeconds(3));
        assertThat(admitted(bucket, 20)).as("the rest of the first window, at its end").isEqualTo(7);
        time().advance(Duration.ofSeconds(1));
        assertThat(admitted(bucket, 20)).as("the next window's start: the previous 8 weigh 8").isZero();
        time().advance(Duration.ofSeconds(2));
        assertThat(admitted(bucket, 20)).as("halfway: the previous 8 weigh 4").isEqualTo(4);
        time().advance(Duration.ofSeconds(1));
        assertThat(admitted(bucket, 20)).as("three quarters: they weigh 2, and this window holds 4").isEqualTo(2);
    }

    @Test
    @DisplayName("sliding window: a key idle for two window lengths has nothing left to weigh")
    void slidingWindowIdleKeyStartsAfresh() {
        Bucket bucket = slidingWindow("sw-idle", limit(3, Duration.ofSeconds(2)));
        limiter.consume(bucket, "k", 3);
        time().advance(Duration.ofSeconds(4));
        Verdict fresh = limiter.consume(bucket, "k");
        assertThat(fresh.remaining()).isEqualTo(2);
        assertThat(fresh.resetAfter()).as("a new first window: its length and one more")
                .isGreaterThan(Duration.ofMillis(3_500)).isLessThanOrEqualTo(Duration.ofSeconds(4));
    }

    @Test
    @DisplayName("a bucket whose algorithm changes to a sliding window starts afresh")
    void changedAlgorithmToSlidingStartsAfresh() {
        Bucket fixed = bucket("algorithm-to-sliding", 2, Duration.ofSeconds(60));
        Bucket tokens = Bucket.of(fixed.name(), fixed.limits(), OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET,
                0);
        Bucket sliding = Bucket.of(fixed.name(), fixed.limits(), OutagePolicy.FALLBACK,
                Algorithm.SLIDING_WINDOW, 0);
        limiter.consume(fixed, "k", 2);
        limiter.consume(tokens, "k", 2);
        assertThat(limiter.consume(sliding, "k").remaining()).isEqualTo(1);
        assertThat(limiter.consume(sliding, "k").remaining()).isZero();
        assertThat(limiter.consume(sliding, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("refund: a counted call given back leaves room for one more in the same window, whose end stays")
    void refundGivesBackToTheWindowCounted() {
        Bucket bucket = bucket("refund-same", 2, Duration.ofSeconds(60));
        Verdict counted = limiter.consume(bucket, "k");
        assertThat(limiter.consume(bucket, "k").remaining()).isZero();

        assertThat(refund(counted, bucket, "k", 1, Duration.ZERO)).isTrue();
        Verdict again = limiter.consume(bucket, "k");
        assertThat(again.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(again.remaining()).isZero();
        assertThat(again.resetAfter()).as("the window's end did not move").isLessThanOrEqualTo(counted.resetAfter());
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("refund: a count never goes below 0, whatever the refund's cost")
    void refundNeverBelowZero() {
        Bucket bucket = bucket("refund-floor", 5, Duration.ofSeconds(60));
        Verdict counted = limiter.consume(bucket, "k");
        refund(counted, bucket, "k", 3, Duration.ZERO);
        assertThat(limiter.consume(bucket, "k", 0).remaining()).isEqualTo(5);
        assertThat(limiter.consume(bucket, "k", 5).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("refund: a window that ended since is left alone, and the next one never credited, even when the "
            + "refund's reckoning of the time is a second short")
    void refundLeavesALaterWindowAlone() {
        Bucket bucket = bucket("refund-later", 2, Duration.ofSeconds(4));
        Verdict counted = limiter.consume(bucket, "k");
        time().advance(Duration.ofMillis(4_200));
        assertThat(limiter.consume(bucket, "k", 2).outcome()).as("a new window").isEqualTo(Outcome.ALLOWED);

        refund(counted, bucket, "k", 1, Duration.ofMillis(4_200));
        assertThat(limiter.consume(bucket, "k").outcome()).as("ended: nothing to give back").isEqualTo(Outcome.DENIED);
        refund(counted, bucket, "k", 1, Duration.ofMillis(3_200));
        assertThat(limiter.consume(bucket, "k").outcome()).as("the store's own test: a window ending a window later "
                + "is another one").isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("refund: every window of a bucket of several gets the cost back")
    void refundOfSeveralWindows() {
        Bucket bucket = bucket("refund-windows", limit(2, Duration.ofSeconds(60)), limit(3, Duration.ofHours(1)));
        Verdict counted = limiter.consume(bucket, "k", 2);
        assertThat(remaining(counted)).containsExactly(0L, 1L);
        refund(counted, bucket, "k", 2, Duration.ZERO);
        assertThat(remaining(limiter.consume(bucket, "k", 0))).containsExactly(2L, 3L);
    }

    @Test
    @DisplayName("refund: several buckets' refunds in one call, each to its own bucket and key")
    void refundOfSeveralBucketsInOneCall() {
        Bucket first = bucket("refund-first", 1, Duration.ofSeconds(60));
        Bucket second = bucket("refund-second", 1, Duration.ofSeconds(60));
        Verdict[] counted = BatchingLimiter.consumeAll(limiter, List.of(new StoreItem(first, "k", 1),
                new StoreItem(second, "j", 1)));
        assertThat(counted).extracting(Verdict::outcome).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED);
        limiter.consume(second, "k");

        assertThat(((RefundingLimiter) limiter).refund(List.of(
                WindowVerdicts.refund(first, "k", 1, counted[0], 0),
                WindowVerdicts.refund(second, "j", 1, counted[1], 0)))).isTrue();
        assertThat(limiter.consume(first, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(second, "j").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(second, "k").outcome()).as("another key: untouched").isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("refund: a key never counted gets nothing, and no window opens for it")
    void refundOfAKeyNeverCounted() {
        Bucket bucket = bucket("refund-never", 2, Duration.ofSeconds(60));
        Verdict elsewhere = limiter.consume(bucket, "other");
        refund(elsewhere, bucket, "never", 1, Duration.ZERO);
        assertThat(limiter.consume(bucket, "never", 0).remaining()).isEqualTo(2);
        assertThat(limiter.consume(bucket, "never", 2).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "never").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("token bucket: a refund puts the cost's tokens back, never above full")
    void tokenBucketRefund() {
        Bucket bucket = tokenBucket("tb-refund", 0, limit(2, Duration.ofSeconds(60)));
        Verdict counted = limiter.consume(bucket, "k", 2);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        refund(counted, bucket, "k", 1, Duration.ZERO);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);

        refund(counted, bucket, "k", 5, Duration.ZERO);
        assertThat(limiter.consume(bucket, "k", 0).remaining()).as("full, not beyond").isEqualTo(2);
    }

    @Test
    @DisplayName("sliding window: a refund lowers the current window's count")
    void slidingWindowRefund() {
        Bucket bucket = slidingWindow("sw-refund", limit(2, Duration.ofSeconds(60)));
        Verdict counted = limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        refund(counted, bucket, "k", 1, Duration.ZERO);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("sliding window: once the window rolled on, a refund leaves its count, now the previous one, alone")
    void slidingWindowRefundLeavesPreviousAlone() {
        Bucket bucket = slidingWindow("sw-refund-previous", limit(2, Duration.ofSeconds(4)));
        Verdict counted = limiter.consume(bucket, "k", 2);
        time().advance(Duration.ofMillis(4_100));
        refund(counted, bucket, "k", 2, Duration.ofMillis(4_100));
        refund(counted, bucket, "k", 2, Duration.ofMillis(3_100));
        assertThat(limiter.consume(bucket, "k").outcome()).as("the previous 2 still weigh more than 1 for half a "
                + "window").isEqualTo(Outcome.DENIED);
    }

    /** Gives a call {@code counted} allowed back through the limiter under test, {@code elapsed} after it. */
    private boolean refund(Verdict counted, Bucket bucket, String key, long cost, Duration elapsed) {
        StoreRefund refund = WindowVerdicts.refund(bucket, key, cost, counted, elapsed.toMillis());
        return ((RefundingLimiter) limiter).refund(List.of(refund));
    }

    /** 200 threads' first calls on one key of {@code bucket}, released at once; how many were allowed. */
    private int admittedOfConcurrentFirstCalls(Bucket bucket) throws Exception {
        int threads = 200;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    Verdict verdict = limiter.consume(bucket, "first");
                    assertThat(verdict.outcome()).isNotEqualTo(Outcome.UNAVAILABLE);
                    return verdict.isAllowed();
                }));
            }
            int admitted = 0;
            for (Future<Boolean> result : results) {
                admitted += result.get(2, TimeUnit.MINUTES) ? 1 : 0;
            }
            return admitted;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Calls cost 1 until the first refusal, at most {@code most}; how many were allowed. */
    private int admitted(Bucket bucket, int most) {
        return admitted(bucket, "k", most);
    }

    /** Calls of {@code key}, cost 1, until the first refusal, at most {@code most}; how many were allowed. */
    private int admitted(Bucket bucket, String key, int most) {
        int admitted = 0;
        while (admitted < most && limiter.consume(bucket, key).isAllowed()) {
            admitted++;
        }
        return admitted;
    }

    // Plans (docs/plans.md): a plan changes a bucket's limits for some keys, never its windows nor its algorithm, and
    // a store counts by bucket name and key, so a key keeps its count when its plan changes and is compared with the
    // plan's limits from its next call. Windows are long, or waited for in whole seconds, so a store timed by its
    // own clock runs these cases too.

    @Test
    @DisplayName("plans: a key counted 4 times under 10 per 60 s, then decided under a plan of 100, keeps its count: "
            + "remaining 100 - 5; back under 10, remaining 10 - 6")
    void planChangeKeepsCount() {
        planChangeKeepsCount(bucket("plan-keeps", limit(10, Duration.ofSeconds(60))));
    }

    @Test
    @DisplayName("plans, sliding window: a key keeps its count when its plan changes, up and back")
    void slidingWindowPlanChangeKeepsCount() {
        planChangeKeepsCount(slidingWindow("sw-plan-keeps", limit(10, Duration.ofSeconds(60))));
    }

    private void planChangeKeepsCount(Bucket free) {
        Bucket pro = free.withPlan("pro", List.of(limit(100, Duration.ofSeconds(60))), 0);
        for (int i = 0; i < 4; i++) {
            assertThat(limiter.consume(free, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        Verdict upgraded = limiter.consume(pro, "k");
        assertThat(upgraded.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(upgraded.limit()).isEqualTo(pro.limit());
        assertThat(upgraded.remaining()).as("the plan's limit less the 4 counted before and this call")
                .isEqualTo(pro.limit() - 5);
        Verdict back = limiter.consume(free, "k");
        assertThat(back.limit()).isEqualTo(free.limit());
        assertThat(back.remaining()).as("every call counted once, whatever its plan").isEqualTo(free.limit() - 6);
    }

    @Test
    @DisplayName("plans: a lower plan applies to the count already made: refused at and above its limit, counting "
            + "nothing, with a Retry-After that is true (refused a second before it, allowed at it)")
    void lowerPlanAppliesToCountMade() {
        Bucket free = bucket("plan-lower", limit(4, Duration.ofSeconds(2)));
        Verdict last = lowerPlanRefuses(free);
        Verdict refused = limiter.consume(trial(free), "k");
        assertThat(refused.resetAfter()).as("the window's end, which did not move")
                .isLessThanOrEqualTo(last.resetAfter()).isPositive();
        assertRetryAfterTrue(trial(free), "k", refused);
    }

    @Test
    @DisplayName("plans, sliding window: a lower plan applies to the count already made, with a true Retry-After "
            + "past the window's end")
    void slidingWindowLowerPlanAppliesToCountMade() {
        Bucket free = slidingWindow("sw-plan-lower", limit(4, Duration.ofSeconds(2)));
        lowerPlanRefuses(free);
        Verdict refused = limiter.consume(trial(free), "k");
        assertThat(refused.resetAfter()).as("the count made weighs on past the window's end")
                .isGreaterThan(Duration.ofSeconds(2)).isLessThanOrEqualTo(Duration.ofSeconds(4));
        assertRetryAfterTrue(trial(free), "k", refused);
    }

    /** The trial plan of a one-window bucket: half its limit. */
    private static Bucket trial(Bucket free) {
        return free.withPlan("trial", List.of(limit(free.limit() / 2, free.window())), 0);
    }

    /**
     * Counts key {@code k} 3 times and key {@code at} 2 times under {@code free} (a limit of 4), then decides them
     * under {@link #trial} (2): both refused, counting nothing. Returns {@code k}'s last allowed verdict.
     */
    private Verdict lowerPlanRefuses(Bucket free) {
        Bucket trial = trial(free);
        Verdict last = null;
        for (int i = 0; i < 3; i++) {
            last = limiter.consume(free, "k");
            assertThat(last.outcome()).isEqualTo(Outcome.ALLOWED);
        }
        for (int i = 0; i < trial.limit(); i++) {
            assertThat(limiter.consume(free, "at").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        Verdict above = limiter.consume(trial, "k");
        assertThat(above.outcome()).as("3 counted, above the plan's 2").isEqualTo(Outcome.DENIED);
        assertThat(above.limit()).isEqualTo(trial.limit());
        assertThat(above.remaining()).isZero();
        assertThat(limiter.consume(trial, "at").outcome()).as("2 counted, at the plan's 2").isEqualTo(
                Outcome.DENIED);
        assertThat(limiter.consume(free, "at").remaining()).as("the refusals counted nothing")
                .isEqualTo(free.limit() - trial.limit() - 1);
        return last;
    }

    /** Waits the refusal's Retry-After less a second (still refused), then a second more (allowed). */
    private void assertRetryAfterTrue(Bucket bucket, String key, Verdict refused) {
        long seconds = refused.retryAfterSeconds();
        assertThat(seconds).isPositive();
        if (seconds > 1) {
            time().advance(Duration.ofSeconds(seconds - 1));
            assertThat(limiter.consume(bucket, key).outcome()).as("a second before Retry-After")
                    .isEqualTo(Outcome.DENIED);
        }
        time().advance(Duration.ofSeconds(1));
        assertThat(limiter.consume(bucket, key).outcome()).as("at Retry-After").isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("plans: two keys on different plans of one bucket are counted apart, each against its own plan")
    void plansKeepKeysApart() {
        plansKeepKeysApart(bucket("plan-apart", limit(3, Duration.ofSeconds(60))));
    }

    @Test
    @DisplayName("plans, sliding window: two keys on different plans of one bucket are counted apart")
    void slidingWindowPlansKeepKeysApart() {
        plansKeepKeysApart(slidingWindow("sw-plan-apart", limit(3, Duration.ofSeconds(60))));
    }

    private void plansKeepKeysApart(Bucket free) {
        Bucket pro = free.withPlan("pro", List.of(limit(10, Duration.ofSeconds(60))), 0);
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.consume(pro, "a").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(admitted(free, "b", 10)).as("b on free, untouched by a's 5").isEqualTo(free.limit());
        Verdict a = limiter.consume(pro, "a");
        assertThat(a.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(a.remaining()).as("a on pro, untouched by b's").isEqualTo(pro.limit() - 6);
    }

    @Test
    @DisplayName("plans with a limit per window: each window compared with the plan's own limit for it; a refusal "
            + "by one window of a lower plan counts in none")
    void planWithPerWindowLimits() {
        planWithPerWindowLimits(bucket("plan-windows", limit(3, Duration.ofSeconds(30)),
                limit(6, Duration.ofSeconds(60))));
    }

    @Test
    @DisplayName("plans, sliding window: a plan with a limit per window")
    void slidingWindowPlanWithPerWindowLimits() {
        planWithPerWindowLimits(slidingWindow("sw-plan-windows", limit(3, Duration.ofSeconds(30)),
                limit(6, Duration.ofSeconds(60))));
    }

    private void planWithPerWindowLimits(Bucket free) {
        Bucket pro = free.withPlan("pro", List.of(limit(6, Duration.ofSeconds(30)), limit(20, Duration.ofSeconds(60))),
                0);
        Bucket lite = free.withPlan("lite", List.of(limit(2, Duration.ofSeconds(30)),
                limit(10, Duration.ofSeconds(60))), 0);
        assertThat(admitted(free, "k", 10)).isEqualTo(3);
        Verdict upgraded = limiter.consume(pro, "k");
        assertThat(upgraded.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(remaining(upgraded)).as("each window's plan limit less the 4 counted")
                .containsExactly(pro.limits().get(0).limit() - 4, pro.limits().get(1).limit() - 4);
        Verdict refused = limiter.consume(lite, "k");
        assertThat(refused.outcome()).as("4 counted, above the 30 s window's 2").isEqualTo(Outcome.DENIED);
        assertThat(remaining(refused)).containsExactly(0L, lite.limits().get(1).limit() - 4);
        assertThat(remaining(limiter.consume(pro, "k"))).as("the refusal counted in no window")
                .containsExactly(pro.limits().get(0).limit() - 5, pro.limits().get(1).limit() - 5);
    }

    // Token buckets under plans: the key's state is each window's theoretical arrival time (TAT), the instant it is
    // full again, which a plan change keeps; it is read under the call's bucket (its capacity and token interval),
    // owing at most a full refill (docs/plans.md). OwedTokens applies that rule at one instant; the numbers are chosen
    // so that the few milliseconds a store timed by its own clock lets pass change no whole token.

    @Test
    @DisplayName("plans, token bucket: 4 tokens taken under 10 per 60 s, then a plan of 100 per 60 s: the time owed "
            + "until full carries, read in the plan's tokens; and back")
    void tokenBucketPlanChangeKeepsCount() {
        Bucket free = tokenBucket("tb-plan-keeps", 0, limit(10, Duration.ofSeconds(60)));
        Bucket pro = free.withPlan("pro", List.of(limit(100, Duration.ofSeconds(60))), 0);
        OwedTokens model = new OwedTokens(1);
        for (int i = 0; i < 4; i++) {
            assertThat(decided(free, "k", model).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        Verdict upgraded = decided(pro, "k", model);
        assertThat(upgraded.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(upgraded.remaining()).as("more than free's, fewer than a full pro bucket's")
                .isGreaterThan(capacity(free, 0)).isLessThan(capacity(pro, 0) - 1);
        assertThat(decided(free, "k", model).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("plans, token bucket: a lower plan applies to the tokens already taken: refused when the time owed "
            + "leaves it no token, with a true Retry-After")
    void tokenBucketLowerPlanAppliesToCountMade() {
        Bucket free = tokenBucket("tb-plan-lower", 0, limit(4, Duration.ofSeconds(2)));
        Bucket trial = trial(free);
        OwedTokens k = new OwedTokens(1);
        OwedTokens at = new OwedTokens(1);
        for (int i = 0; i < 3; i++) {
            assertThat(decided(free, "k", k).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        for (int i = 0; i < 4; i++) {
            assertThat(decided(free, "at", at).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        Verdict refused = decided(trial, "k", k);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(decided(trial, "at", at).outcome()).as("owing a full trial bucket").isEqualTo(Outcome.DENIED);
        Duration expected = Duration.ofNanos(k.wait(trial) * 1_000);
        assertThat(refused.resetAfter()).as("until the plan's token is there")
                .isBetween(expected.minusMillis(250), expected);
        assertRetryAfterTrue(trial, "k", refused);
    }

    @Test
    @DisplayName("plans, token bucket: two keys on different plans of one bucket are counted apart")
    void tokenBucketPlansKeepKeysApart() {
        Bucket free = tokenBucket("tb-plan-apart", 0, limit(3, Duration.ofSeconds(60)));
        Bucket pro = free.withPlan("pro", List.of(limit(10, Duration.ofSeconds(60))), 0);
        OwedTokens a = new OwedTokens(1);
        for (int i = 0; i < 5; i++) {
            assertThat(decided(pro, "a", a).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(admitted(free, "b", 10)).as("b on free, untouched by a's 5").isEqualTo(capacity(free, 0));
        assertThat(decided(pro, "a", a).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("plans, token bucket: a plan with a capacity and rate per window; a refusal by one window of a "
            + "lower plan takes from none")
    void tokenBucketPlanWithPerWindowLimits() {
        Bucket free = tokenBucket("tb-plan-windows", 0, limit(4, Duration.ofSeconds(20)),
                limit(10, Duration.ofSeconds(60)));
        Bucket pro = free.withPlan("pro", List.of(limit(8, Duration.ofSeconds(20)), limit(100, Duration.ofSeconds(60))),
                0);
        Bucket lite = free.withPlan("lite", List.of(limit(2, Duration.ofSeconds(20)),
                limit(50, Duration.ofSeconds(60))), 0);
        OwedTokens model = new OwedTokens(2);
        for (int i = 0; i < 3; i++) {
            assertThat(decided(free, "k", model).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(decided(pro, "k", model).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(decided(lite, "k", model).outcome()).as("the 20 s window owes more than lite's token")
                .isEqualTo(Outcome.DENIED);
        assertThat(decided(pro, "k", model).outcome()).as("the refusal took nothing").isEqualTo(Outcome.ALLOWED);
    }

    // Settings changed (docs/stores.md#counters-across-a-change-of-settings): a reload or a restart gives a bucket of
    // the same name other windows, windows of other lengths or another algorithm, and stores count by bucket name and
    // key, so a key's counters meet the new settings at its next call. The first verdict after the change must tell
    // the truth: a Retry-After never past the new window's end, and the call allowed at it. New windows are short and
    // waited for in whole seconds, so a store timed by its own clock runs these cases in real time.

    /** {@code bucket}'s name under other settings: the algorithm and windows given, burst 0. */
    private static Bucket changed(Bucket bucket, Algorithm algorithm, Limit... limits) {
        return Bucket.of(bucket.name(), List.of(limits), OutagePolicy.FALLBACK, algorithm, 0);
    }

    @Test
    @DisplayName("settings changed: a fixed window shortened from 60 s to 2 s keeps the 3 counted and ends within "
            + "2 s: the first call is refused with a true Retry-After of at most 2 s, and the next window is 2 s long")
    void shortenedWindowEndsWithinNewLength() {
        Bucket before = bucket("shortened", limit(3, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(2)));
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).as("the 3 counted apply to the new window").isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.resetAfter()).as("within the new window, not the old one's 60 s").isPositive()
                .isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertRetryAfterTrue(after, "k", refused);
        Verdict next = limiter.consume(after, "k");
        assertThat(next.remaining()).as("a new window opened at Retry-After, counting 2").isEqualTo(1);
        assertThat(next.resetAfter()).isLessThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    @DisplayName("settings changed: a fixed window lengthened from 2 s to 60 s keeps the count made and its end; the "
            + "window that follows is 60 s long")
    void lengthenedWindowKeepsCountAndEnd() {
        Bucket before = bucket("lengthened", limit(3, Duration.ofSeconds(2)));
        Bucket after = changed(before, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(60)));
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.resetAfter()).as("the open window's end, which did not move").isPositive()
                .isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertRetryAfterTrue(after, "k", refused);
        Verdict next = limiter.consume(after, "k");
        assertThat(next.remaining()).isEqualTo(1);
        assertThat(next.resetAfter()).as("the new length").isGreaterThan(Duration.ofSeconds(50));
    }

    @Test
    @DisplayName("settings changed, token bucket: 4 per 60 s spent, then 4 per 2 s: the time owed is at most the new "
            + "2 s refill, so the first call is refused until one token of 0.5 s is back, and allowed at Retry-After")
    void tokenBucketShortenedWindowOwesAtMostNewRefill() {
        Bucket before = tokenBucket("tb-shortened", 0, limit(4, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.TOKEN_BUCKET, limit(4, Duration.ofSeconds(2)));
        assertThat(admitted(before, 6)).isEqualTo(4);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).as("empty under the new settings too").isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.resetAfter()).as("one token of the new rate, not of the old 15 s").isPositive()
                .isLessThanOrEqualTo(Duration.ofMillis(500));
        assertRetryAfterTrue(after, "k", refused);
    }

    @Test
    @DisplayName("settings changed, sliding window: 60 s shortened to 2 s keeps the 4 counted in a current window "
            + "ending within 2 s; they weigh on as the previous window's, so a true Retry-After lies within two new "
            + "lengths")
    void slidingWindowShortenedWindowEndsWithinNewLength() {
        Bucket before = slidingWindow("sw-shortened", limit(4, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.SLIDING_WINDOW, limit(4, Duration.ofSeconds(2)));
        assertThat(admitted(before, 6)).isEqualTo(4);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.resetAfter()).as("the new window's end, then the 4 sliding out to 3")
                .isGreaterThan(Duration.ofSeconds(2)).isLessThanOrEqualTo(Duration.ofSeconds(4));
        assertRetryAfterTrue(after, "k", refused);
    }

    @Test
    @DisplayName("settings changed: a bucket going from one window to two, or from two to one, starts afresh")
    void windowAddedStartsAfresh() {
        Bucket one = bucket("window-added", limit(3, Duration.ofSeconds(60)));
        windowAddedStartsAfresh(one, changed(one, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1))));
        Bucket two = bucket("window-removed", limit(3, Duration.ofSeconds(60)), limit(10, Duration.ofHours(1)));
        windowAddedStartsAfresh(two, changed(two, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(60))));
    }

    @Test
    @DisplayName("settings changed, token bucket: one window to two, or two to one, starts afresh")
    void tokenBucketWindowAddedStartsAfresh() {
        Bucket one = tokenBucket("tb-window-added", 0, limit(3, Duration.ofSeconds(60)));
        windowAddedStartsAfresh(one, changed(one, Algorithm.TOKEN_BUCKET, limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1))));
        Bucket two = tokenBucket("tb-window-removed", 0, limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1)));
        windowAddedStartsAfresh(two, changed(two, Algorithm.TOKEN_BUCKET, limit(3, Duration.ofSeconds(60))));
    }

    @Test
    @DisplayName("settings changed, sliding window: one window to two, or two to one, starts afresh")
    void slidingWindowWindowAddedStartsAfresh() {
        Bucket one = slidingWindow("sw-window-added", limit(3, Duration.ofSeconds(60)));
        windowAddedStartsAfresh(one, changed(one, Algorithm.SLIDING_WINDOW, limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1))));
        Bucket two = slidingWindow("sw-window-removed", limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1)));
        windowAddedStartsAfresh(two, changed(two, Algorithm.SLIDING_WINDOW, limit(3, Duration.ofSeconds(60))));
    }

    /** Spends {@code before}'s first window, then decides under {@code after}: allowed, every window less one. */
    private void windowAddedStartsAfresh(Bucket before, Bucket after) {
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict fresh = limiter.consume(after, "k");
        assertThat(fresh.outcome()).as("%s: afresh", before.name()).isEqualTo(Outcome.ALLOWED);
        List<Long> left = after.hasSeveralWindows() ? remaining(fresh) : List.of(fresh.remaining());
        List<Long> full = new ArrayList<>();
        for (int i = 0; i < after.limits().size(); i++) {
            full.add(capacity(after, i) - 1);
        }
        assertThat(left).as("%s: every window less this call", before.name()).isEqualTo(full);
        assertThat(fresh.resetAfter()).isLessThanOrEqualTo(Duration.ofHours(1));
    }

    @Test
    @DisplayName("settings changed, several windows: the 2 s window, kept, keeps its 3; the 60 s window, now 30 s, "
            + "opens afresh; the first call is refused by the 2 s window with a true Retry-After")
    void severalWindowsKeepTheCountOfALengthKept() {
        Bucket before = bucket("windows-changed", limit(3, Duration.ofSeconds(2)), limit(5, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(2)),
                limit(5, Duration.ofSeconds(30)));
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(remaining(refused)).containsExactly(0L, 5L);
        assertThat(refused.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertRetryAfterTrue(after, "k", refused);
        assertThat(remaining(limiter.consume(after, "k"))).containsExactly(1L, 3L);
    }

    @Test
    @DisplayName("settings changed, sliding windows: the 2 s window, kept, keeps its 3; the 60 s window, now 30 s, "
            + "has nothing to weigh; refused by the 2 s window with a true Retry-After")
    void slidingWindowSeveralWindowsKeepTheCountOfALengthKept() {
        Bucket before = slidingWindow("sw-windows-changed", limit(3, Duration.ofSeconds(2)),
                limit(6, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.SLIDING_WINDOW, limit(3, Duration.ofSeconds(2)),
                limit(6, Duration.ofSeconds(30)));
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(remaining(refused)).containsExactly(0L, 6L);
        assertThat(refused.resetAfter()).as("the 2 s window's end, then its 3 sliding out to 2").isPositive()
                .isLessThanOrEqualTo(Duration.ofSeconds(4));
        assertRetryAfterTrue(after, "k", refused);
    }

    @Test
    @DisplayName("settings changed, token buckets: the 2 s window's 2 tokens taken still refuse the first call, "
            + "whatever becomes of the 60 s window now 30 s; allowed at Retry-After")
    void tokenBucketWindowLengthChangedAmongSeveral() {
        Bucket before = tokenBucket("tb-windows-changed", 0, limit(2, Duration.ofSeconds(2)),
                limit(10, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.TOKEN_BUCKET, limit(2, Duration.ofSeconds(2)),
                limit(10, Duration.ofSeconds(30)));
        assertThat(admitted(before, 5)).isEqualTo(2);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(remaining(refused).get(0)).isZero();
        assertThat(remaining(refused).get(1)).as("at most the 30 s window's 10, never below 10 - 2 x 6 s / 3 s")
                .isBetween(6L, 10L);
        assertThat(refused.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
        assertRetryAfterTrue(after, "k", refused);
    }

    @Test
    @DisplayName("settings changed, algorithm: a spent token bucket becoming a fixed window, and a spent sliding "
            + "window becoming a token bucket, start afresh")
    void changedAlgorithmFromTokenOrSlidingStartsAfresh() {
        Bucket tokens = tokenBucket("algorithm-from-tokens", 0, limit(2, Duration.ofSeconds(60)));
        Bucket fixed = changed(tokens, Algorithm.FIXED_WINDOW, limit(2, Duration.ofSeconds(60)));
        assertThat(admitted(tokens, 4)).isEqualTo(2);
        assertThat(limiter.consume(fixed, "k").remaining()).isEqualTo(1);
        Bucket sliding = slidingWindow("algorithm-from-sliding", limit(2, Duration.ofSeconds(60)));
        Bucket refilled = changed(sliding, Algorithm.TOKEN_BUCKET, limit(2, Duration.ofSeconds(60)));
        assertThat(admitted(sliding, 4)).isEqualTo(2);
        assertThat(limiter.consume(refilled, "k").remaining()).isEqualTo(1);
    }

    /**
     * Decides one call of cost 1 and checks it against the token bucket's rule: the outcome the model gives, and
     * each window's whole tokens left; the model takes the call when it is allowed.
     */
    private Verdict decided(Bucket bucket, String key, OwedTokens model) {
        model.clamp(bucket);
        boolean fits = model.fits(bucket);
        if (fits) {
            model.take(bucket);
        }
        Verdict verdict = limiter.consume(bucket, key);
        assertThat(verdict.outcome()).as("%s under %s", key, bucket.plan())
                .isEqualTo(fits ? Outcome.ALLOWED : Outcome.DENIED);
        List<Long> left = bucket.hasSeveralWindows() ? remaining(verdict) : List.of(verdict.remaining());
        assertThat(left).as("%s under %s: tokens left", key, bucket.plan()).isEqualTo(model.left(bucket));
        return verdict;
    }

    /**
     * A token bucket's key at one instant, as the rule keeps it: per window the microseconds owed until full (its
     * TAT less now), whatever bucket of the name took the tokens; read under a call's bucket as at most a full
     * refill (capacity × interval), and kept so.
     */
    private static final class OwedTokens {
        private final long[] owed;

        OwedTokens(int windows) {
            owed = new long[windows];
        }

        private static long full(Bucket bucket, int i) {
            return capacity(bucket, i) * tokenIntervalMicros(bucket, i);
        }

        private long owed(Bucket bucket, int i) {
            return Math.min(owed[i], full(bucket, i));
        }

        /** Every decision, allowed or not, keeps the time owed at most a full refill of its bucket. */
        void clamp(Bucket bucket) {
            for (int i = 0; i < owed.length; i++) {
                owed[i] = owed(bucket, i);
            }
        }

        boolean fits(Bucket bucket) {
            for (int i = 0; i < owed.length; i++) {
                if (owed(bucket, i) + tokenIntervalMicros(bucket, i) > full(bucket, i)) {
                    return false;
                }
            }
            return true;
        }

        void take(Bucket bucket) {
            for (int i = 0; i < owed.length; i++) {
                owed[i] = owed(bucket, i) + tokenIntervalMicros(bucket, i);
            }
        }

        List<Long> left(Bucket bucket) {
            List<Long> left = new ArrayList<>();
            for (int i = 0; i < owed.length; i++) {
                left.add((full(bucket, i) - owed(bucket, i)) / tokenIntervalMicros(bucket, i));
            }
            return left;
        }

        /** Microseconds until a one-window bucket has a token for the call. */
        long wait(Bucket bucket) {
            return Math.max(0, owed(bucket, 0) + tokenIntervalMicros(bucket, 0) - full(bucket, 0));
        }
    }
}
