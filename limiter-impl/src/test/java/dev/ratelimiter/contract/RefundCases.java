package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.internal.core.verdict.Refunds;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.ratelimiter.contract.Capability.REFUNDS;
import static dev.ratelimiter.contract.Capability.SLIDING_WINDOW;
import static dev.ratelimiter.contract.Capability.TOKEN_BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Refunds ({@code RateLimitStore.refund}, docs/guide.md#counting-failures-only), run against a store whose provider
 * declares {@code refunds()}; the token-bucket and sliding-window refunds also need their algorithm.
 */
@Requires(REFUNDS)
abstract class RefundCases extends ContractCases {

    RefundCases(RateLimiterContract contract) {
        super(contract);
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

        assertThat(limiter.refund(List.of(
                Refunds.refund(first, "k", 1, counted[0], 0),
                Refunds.refund(second, "j", 1, counted[1], 0)))).isTrue();
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
    @Requires(TOKEN_BUCKET)
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
    @Requires(SLIDING_WINDOW)
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
    @Requires(SLIDING_WINDOW)
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
        StoreRefund refund = Refunds.refund(bucket, key, cost, counted, elapsed.toMillis());
        return limiter.refund(List.of(refund));
    }
}
