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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.ratelimiter.contract.RateLimiterContract.CONTROLLED_CLOCK;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bucket of several windows (docs/guide.md#several-windows-per-bucket), decided by every store: a call is allowed only if it
 * fits every window and a refusal counts in none; each window ends on its own; a reset clears them all; costs, threads
 * and several buckets in one call, with several windows.
 */
abstract class SeveralWindowsCases extends ContractCases {

    SeveralWindowsCases(RateLimiterContract contract) {
        super(contract);
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
}
