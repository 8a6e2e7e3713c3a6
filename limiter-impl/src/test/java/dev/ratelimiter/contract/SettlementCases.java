package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.verdict.Refunds;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.ratelimiter.contract.Capability.DEBITS;
import static dev.ratelimiter.contract.Capability.SLIDING_WINDOW;
import static dev.ratelimiter.contract.Capability.TOKEN_BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Costs settled after the call ({@code RateLimitStore.refund} of either sign, docs/stores.md#settlements):
 * a call reserves a cost, and once it has run the difference from its actual cost is debited or given back in the
 * windows it was counted in. Run against a store whose provider declares {@code refunds()} and {@code debits()}.
 */
@Requires(DEBITS)
abstract class SettlementCases extends ContractCases {

    private static final int SETTLERS = 8;

    SettlementCases(RateLimiterContract contract) {
        super(contract);
    }

    @Test
    @DisplayName("debit: a call that reserved 1 and cost 6 takes the other 5 from its window, whose end stays")
    void debitTakesTheDifference() {
        Bucket bucket = bucket("settle-debit", 10, Duration.ofSeconds(60));
        Verdict reserved = limiter.consume(bucket, "k");
        assertThat(settle(reserved, bucket, "k", 1, 6, Duration.ZERO)).isTrue();

        Verdict read = limiter.consume(bucket, "k", 0);
        assertThat(read.remaining()).isEqualTo(4);
        assertThat(read.resetAfter()).as("the window's end did not move").isLessThanOrEqualTo(reserved.resetAfter());
        assertThat(limiter.consume(bucket, "k", 4).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("debit past the limit: the window holds the whole overrun, so the key is refused until it ends, "
            + "then starts afresh")
    void debitPastTheLimit() {
        Bucket bucket = bucket("settle-overrun", 10, Duration.ofSeconds(4));
        Verdict reserved = limiter.consume(bucket, "k", 2);
        settle(reserved, bucket, "k", 2, 25, Duration.ZERO);

        Verdict refused = limiter.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        settle(reserved, bucket, "k", 10, 0, Duration.ZERO);
        assertThat(limiter.consume(bucket, "k").outcome()).as("25 less 10 is still past 10")
                .isEqualTo(Outcome.DENIED);

        time().advance(Duration.ofMillis(4_200));
        assertThat(limiter.consume(bucket, "k", 10).outcome()).as("a new window owes nothing")
                .isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("credit: a call that reserved 5 and cost 2 gives 3 back")
    void creditGivesBackTheDifference() {
        Bucket bucket = bucket("settle-credit", 5, Duration.ofSeconds(60));
        Verdict reserved = limiter.consume(bucket, "k", 5);
        settle(reserved, bucket, "k", 5, 2, Duration.ZERO);
        assertThat(limiter.consume(bucket, "k", 0).remaining()).isEqualTo(3);
        assertThat(limiter.consume(bucket, "k", 3).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("a settlement after its window ended touches nothing: the next window is never debited, even when "
            + "the reckoning of the time is a second short")
    void debitAfterTheWindowEndedTouchesNothing() {
        Bucket bucket = bucket("settle-later", 10, Duration.ofSeconds(4));
        Verdict reserved = limiter.consume(bucket, "k");
        time().advance(Duration.ofMillis(4_200));
        assertThat(limiter.consume(bucket, "k").remaining()).as("a new window").isEqualTo(9);

        settle(reserved, bucket, "k", 1, 8, Duration.ofMillis(4_200));
        settle(reserved, bucket, "k", 1, 8, Duration.ofMillis(3_200));
        assertThat(limiter.consume(bucket, "k", 0).remaining()).isEqualTo(9);
    }

    @Test
    @DisplayName("concurrent settlements on one key add up exactly: 8 threads, each debiting 3 and crediting 1")
    void concurrentSettlementsOnOneKey() throws Exception {
        Bucket bucket = bucket("settle-concurrent", 1_000, Duration.ofSeconds(60));
        List<Verdict> reserved = new ArrayList<>();
        for (int i = 0; i < SETTLERS; i++) {
            reserved.add(limiter.consume(bucket, "k", 2));
        }
        ExecutorService settlers = Executors.newFixedThreadPool(SETTLERS);
        try {
            CyclicBarrier barrier = new CyclicBarrier(SETTLERS);
            List<Future<Boolean>> done = new ArrayList<>();
            for (Verdict verdict : reserved) {
                done.add(settlers.submit(() -> {
                    barrier.await(30, TimeUnit.SECONDS);
                    return settle(verdict, bucket, "k", 2, 5, Duration.ZERO)
                            && settle(verdict, bucket, "k", 1, 0, Duration.ZERO);
                }));
            }
            for (Future<Boolean> each : done) {
                assertThat(each.get(30, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            settlers.shutdownNow();
        }
        // 8 × 2 reserved, 8 × 3 debited, 8 × 1 given back: 32 counted.
        assertThat(limiter.consume(bucket, "k", 0).remaining()).isEqualTo(1_000 - 32);
    }

    @Test
    @DisplayName("a debit and a credit of one key in one call add up")
    void debitAndCreditInOneCall() {
        Bucket bucket = bucket("settle-mixed", 20, Duration.ofSeconds(60));
        Verdict first = limiter.consume(bucket, "k", 4);
        Verdict second = limiter.consume(bucket, "k", 4);
        assertThat(limiter.refund(List.of(
                Refunds.settlement(bucket, "k", 4, 9, first, 0).orElseThrow(),
                Refunds.settlement(bucket, "k", 4, 1, second, 0).orElseThrow()))).isTrue();
        assertThat(limiter.consume(bucket, "k", 0).remaining()).isEqualTo(20 - 10);
    }

    @Test
    @DisplayName("debit: every window of a bucket of several takes it")
    void debitOfSeveralWindows() {
        Bucket bucket = bucket("settle-windows", limit(10, Duration.ofSeconds(60)), limit(30, Duration.ofHours(1)));
        Verdict reserved = limiter.consume(bucket, "k");
        settle(reserved, bucket, "k", 1, 7, Duration.ZERO);
        assertThat(remaining(limiter.consume(bucket, "k", 0))).containsExactly(3L, 23L);
    }

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("token bucket: a debit takes the tokens, at most down to empty, and they refill at the bucket's rate")
    void tokenBucketDebit() {
        Bucket bucket = tokenBucket("settle-tb", 0, limit(10, Duration.ofSeconds(10)));
        Verdict reserved = limiter.consume(bucket, "k");
        settle(reserved, bucket, "k", 1, 4, Duration.ZERO);
        assertThat(limiter.consume(bucket, "k", 0).remaining()).isEqualTo(6);

        settle(reserved, bucket, "k", 1, 50, Duration.ZERO);
        Verdict empty = limiter.consume(bucket, "k");
        assertThat(empty.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(empty.resetAfter()).as("no debt below empty: a token back within a token's time")
                .isLessThanOrEqualTo(Duration.ofSeconds(1));
        time().advance(Duration.ofMillis(1_100));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @Requires(SLIDING_WINDOW)
    @DisplayName("sliding window: a debit raises the current window's count")
    void slidingWindowDebit() {
        Bucket bucket = slidingWindow("settle-sw", limit(10, Duration.ofSeconds(60)));
        Verdict reserved = limiter.consume(bucket, "k");
        settle(reserved, bucket, "k", 1, 9, Duration.ZERO);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    /** Settles a call {@code reserved} allowed through the limiter under test, {@code elapsed} after it. */
    private boolean settle(Verdict reserved, Bucket bucket, String key, long reservedCost, long settledCost,
                           Duration elapsed) {
        StoreRefund settlement = Refunds.settlement(bucket, key, reservedCost, settledCost, reserved,
                elapsed.toMillis()).orElseThrow();
        return limiter.refund(List.of(settlement));
    }
}
