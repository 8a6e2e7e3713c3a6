package dev.ratelimiter.contract;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.spi.StoreItem;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.ratelimiter.contract.Capability.SLIDING_WINDOW;
import static dev.ratelimiter.contract.Capability.TOKEN_BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sliding windows (docs/guide.md#sliding-windows), run against a store whose provider declares
 * {@link dev.ratelimiter.Algorithm#SLIDING_WINDOW}. Windows of at least 2 s, steps of whole seconds and limits
 * whose weighted counts change by whole attempts per step, so a store timed by its own clock runs these cases in real
 * time: the milliseconds the calls take only lower a weighted count by a fraction, which rounds up as before.
 */
@Requires(SLIDING_WINDOW)
abstract class SlidingWindowCases extends ContractCases {

    SlidingWindowCases(RateLimiterContract contract) {
        super(contract);
    }

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
    @Requires(TOKEN_BUCKET)
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
    @Requires(TOKEN_BUCKET)
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
}
