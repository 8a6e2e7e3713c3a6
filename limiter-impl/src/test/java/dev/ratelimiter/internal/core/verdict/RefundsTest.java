package dev.ratelimiter.internal.core.verdict;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RefundsTest {

    private final Bucket bucket = Bucket.of("tokens", 10, Duration.ofSeconds(60));
    private final Verdict reserved = Verdict.allowed(10, 7, Duration.ofSeconds(30));

    @Test
    @DisplayName("a settlement above the reservation debits the difference, below it gives the difference back, "
            + "equal to it sends nothing; each names the window the call was counted in")
    void settlementOfEitherSign() {
        StoreRefund debit = Refunds.settlement(bucket, "k", 3, 8, reserved, 1_000).orElseThrow();
        assertThat(debit.cost()).isEqualTo(-5);
        assertThat(debit.debit()).isTrue();
        assertThat(debit.endsInMillis()).containsExactly(29_000);

        StoreRefund credit = Refunds.settlement(bucket, "k", 3, 1, reserved, 0).orElseThrow();
        assertThat(credit.cost()).isEqualTo(2);
        assertThat(credit.debit()).isFalse();

        assertThat(Refunds.settlement(bucket, "k", 3, 3, reserved, 0)).isEmpty();
    }

    @Test
    @DisplayName("a settled cost beyond the reservation plus the largest limit is taken as that: no count overflows")
    void settlementCapped() {
        StoreRefund debit = Refunds.settlement(bucket, "k", 3, Long.MAX_VALUE, reserved, 0).orElseThrow();
        assertThat(debit.cost()).isEqualTo(-Bucket.MAX_LIMIT);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new StoreRefund(bucket, "k", -Bucket.MAX_LIMIT - 1, new long[] {1}))
                .withMessageContaining("more than the largest limit");
    }

    @Test
    @DisplayName("a negative settled cost and a refund of 0 are refused, naming the number")
    void badSettlements() {
        assertThatIllegalArgumentException().isThrownBy(() -> Refunds.settlement(bucket, "k", 3, -1, reserved, 0))
                .withMessageContaining("-1");
        assertThatIllegalArgumentException().isThrownBy(() -> new StoreRefund(bucket, "k", 0, new long[] {1}))
                .withMessageContaining("cost 0");
    }

    @Test
    @DisplayName("the headers after a debit: remaining lowered by it, never below 0; after a credit, never above "
            + "the limit")
    void headersAfterSettlement() {
        assertThat(Refunds.givenBack(bucket, reserved, -5).remaining()).isEqualTo(2);
        assertThat(Refunds.givenBack(bucket, reserved, -50).remaining()).isZero();
        assertThat(Refunds.givenBack(bucket, reserved, 50).remaining()).isEqualTo(10);
    }

    @Test
    @DisplayName("a token bucket's debit: the time owed grows by the tokens' time from now or the TAT, up to a full "
            + "refill")
    void tokenBucketDebit() {
        long now = 1_000_000;
        assertThat(TokenBuckets.debited(now - 5, now, 3, 100, 10, 0)).as("full").isEqualTo(now + 300);
        assertThat(TokenBuckets.debited(now + 200, now, 3, 100, 10, 0)).isEqualTo(now + 500);
        assertThat(TokenBuckets.debited(now + 200, now, 50, 100, 10, 0)).as("empty, no debt").isEqualTo(now + 1_000);
        assertThat(TokenBuckets.debited(now, now, Long.MAX_VALUE, 100, 10, 0)).as("no overflow").isEqualTo(now + 1_000);
        assertThat(TokenBuckets.debited(now + 1_200, now, 3, 100, 10, 500)).as("a reserving bucket: its queue stays")
                .isEqualTo(now + 1_500);
    }
}
