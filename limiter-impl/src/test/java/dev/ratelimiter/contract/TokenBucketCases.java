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

import static dev.ratelimiter.contract.Capability.TOKEN_BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Token buckets (docs/guide.md#token-buckets), run against a store whose provider declares
 * {@link dev.ratelimiter.Algorithm#TOKEN_BUCKET}. Intervals of at least 500 ms, so a store timed by its own
 * clock runs these cases in real time: the milliseconds a burst of calls takes never refill a whole token.
 */
@Requires(TOKEN_BUCKET)
abstract class TokenBucketCases extends ContractCases {

    TokenBucketCases(RateLimiterContract contract) {
        super(contract);
    }

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
}
