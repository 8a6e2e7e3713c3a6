package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.spi.StoreItem;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.ratelimiter.contract.RateLimiterContract.CONTROLLED_CLOCK;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixed-window rules (docs/guide.md#fixed-windows), the core every store runs: the window, its end and
 * Retry-After, keys and buckets apart, resets, concurrent attempts, costs, and several buckets decided in one call.
 * The cases tagged {@link RateLimiterContract#CONTROLLED_CLOCK} need instants a store timed by its own clock cannot
 * reach from a test.
 */
abstract class FixedWindowCases extends ContractCases {

    FixedWindowCases(RateLimiterContract contract) {
        super(contract);
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
    @DisplayName("16 threads x 250 attempts on one key admit exactly the limit")
    void concurrentAttemptsAdmitExactlyLimit() throws Exception {
        Bucket bucket = bucket("race", 1_000, Duration.ofSeconds(60));
        int threads = 16;
        // 4 000 attempts: the race is over the first 1 000, and 3 000 refusals after it catch any admitted too many.
        // More only adds refusals, each a round trip on a shared store (2 000 a thread took a minute on PostgreSQL).
        int attempts = 250;
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
}
