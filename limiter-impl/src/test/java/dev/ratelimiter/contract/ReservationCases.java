package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.verdict.Refunds;
import dev.ratelimiter.internal.core.verdict.Reservations;
import dev.ratelimiter.spi.StoreItem;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.ratelimiter.contract.Capability.DEBITS;
import static dev.ratelimiter.contract.Capability.REFUNDS;
import static dev.ratelimiter.contract.Capability.TOKEN_BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reservations of a token bucket of one window with a max-wait (docs/guide.md#waiting-instead-of-refusing), run
 * against a store whose provider declares {@link dev.ratelimiter.Algorithm#TOKEN_BUCKET}: a call whose tokens are not
 * there yet is allowed if they come within the bucket's max-wait, counted now, its wait the verdict's time until full
 * less a full refill ({@link Reservations#waitOf}). Intervals of a second: a store on its own clock runs these in real
 * time, and the milliseconds between calls are within each bound.
 */
@Requires(TOKEN_BUCKET)
abstract class ReservationCases extends ContractCases {

    /** What a store on its own clock may have refilled between two calls of a case, and its rounding up. */
    private static final Duration SLACK = Duration.ofMillis(250);

    ReservationCases(RateLimiterContract contract) {
        super(contract);
    }

    /** 2 tokens, one a second, calls waiting up to 3 s. */
    private Bucket partner(String name) {
        return tokenBucket(name, 0, limit(2, Duration.ofSeconds(2))).withMaxWait(Duration.ofSeconds(3));
    }

    private static void assertWait(Bucket bucket, Verdict verdict, Duration expected) {
        assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(Reservations.waitOf(bucket, verdict)).as("the call's wait")
                .isBetween(expected.minus(SLACK).isNegative() ? Duration.ZERO : expected.minus(SLACK),
                        expected.plusMillis(2));
    }

    @Test
    @DisplayName("3 a second (a token every 333 333 µs: a full refill of 999 999 µs, 1 000 ms once rounded up), "
            + "max-wait 2 s: the 3 calls of a burst wait nothing, the one that takes the last token too; the 4th waits; "
            + "a check (cost 0) behind the queue is refused or reads what a call of cost 1 would wait; before it, none")
    void aBurstWithinTheCapacityWaitsNothing() {
        Bucket bucket = tokenBucket("reserve-thirds", 0, limit(3, Duration.ofSeconds(1)))
                .withMaxWait(Duration.ofSeconds(2));
        for (int i = 1; i <= 3; i++) {
            Verdict verdict = limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(Reservations.waitOf(bucket, verdict)).as("call %d's wait", i).isZero();
            if (i == 2) {
                assertThat(Reservations.checkWaitOf(bucket, limiter.consume(bucket, "k", 0)))
                        .as("a check with a token left").isZero();
            }
        }
        assertThat(Reservations.waitOf(bucket, limiter.consume(bucket, "k"))).as("the 4th call's wait")
                .isPositive();
        // A store may refuse the check itself or allow it with the wait: either way a call of cost 1 that cannot
        // wait is refused (Settlements.unreserved)
        Verdict behind = limiter.consume(bucket, "k", 0);
        assertThat(!behind.isAllowed() || !Reservations.checkWaitOf(bucket, behind).isZero())
                .as("a check behind the queue is refused or reads a wait: %s", behind).isTrue();
    }

    @Test
    @DisplayName("2 per 2 s, max-wait 3 s: 2 calls run now, the next three are reserved 1, 2 and 3 s ahead in the "
            + "order they came, the 6th (4 s) is refused, its Retry-After when it would pass without waiting")
    void reservationsQueueInOrder() {
        Bucket bucket = partner("reserve-order");
        assertWait(bucket, limiter.consume(bucket, "k"), Duration.ZERO);
        assertWait(bucket, limiter.consume(bucket, "k"), Duration.ZERO);
        for (int i = 1; i <= 3; i++) {
            Verdict reserved = limiter.consume(bucket, "k");
            assertWait(bucket, reserved, Duration.ofSeconds(i));
            assertThat(reserved.remaining()).isZero();
        }
        Verdict refused = limiter.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.retryAfterSeconds()).as("the 6th passes without waiting in 4 s").isEqualTo(4);
    }

    @Test
    @DisplayName("a refused reservation takes nothing: the next call is refused alike, and after 1 s one call is "
            + "reserved 3 s ahead, behind the others")
    void refusedReservationTakesNothing() {
        Bucket bucket = partner("reserve-refused");
        for (int i = 0; i < 5; i++) {
            limiter.consume(bucket, "k");
        }
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        time().advance(Duration.ofSeconds(1));
        assertWait(bucket, limiter.consume(bucket, "k"), Duration.ofSeconds(3));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("a bucket without max-wait on the same store: refused at once where a reserving one would wait")
    void withoutMaxWaitNothingIsReserved() {
        Bucket bucket = tokenBucket("reserve-none", 0, limit(2, Duration.ofSeconds(2)));
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        Verdict refused = limiter.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    @DisplayName("two replicas on one store reserve in one queue: their reservations are 1, 2, 3 s ahead, never the "
            + "same tokens twice")
    void replicasShareOneQueue() {
        Bucket bucket = partner("reserve-replicas");
        Limiter other = replica();
        limiter.consume(bucket, "k");
        other.consume(bucket, "k");
        assertWait(bucket, limiter.consume(bucket, "k"), Duration.ofSeconds(1));
        assertWait(bucket, other.consume(bucket, "k"), Duration.ofSeconds(2));
        assertWait(bucket, limiter.consume(bucket, "k"), Duration.ofSeconds(3));
        assertThat(other.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("reservations decided together in one round trip (a call of several items, the store's batch path) "
            + "queue as one by one: 1, 2 and 3 s ahead, the 4th refused")
    void reservationsInOneRoundTrip() {
        Bucket bucket = partner("reserve-batch");
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        Verdict[] decided = BatchingLimiter.consumeAll(limiter, List.of(new StoreItem(bucket, "k", 1),
                new StoreItem(bucket, "k", 1), new StoreItem(bucket, "k", 1), new StoreItem(bucket, "k", 1)));
        assertWait(bucket, decided[0], Duration.ofSeconds(1));
        assertWait(bucket, decided[1], Duration.ofSeconds(2));
        assertWait(bucket, decided[2], Duration.ofSeconds(3));
        assertThat(decided[3].outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @Requires(REFUNDS)
    @DisplayName("a reservation given back (its caller could not wait) frees its tokens for the next call, and keeps "
            + "the reservations before it")
    void reservationGivenBack() {
        Bucket bucket = partner("reserve-refund");
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        assertWait(bucket, limiter.consume(bucket, "k"), Duration.ofSeconds(1));
        Verdict second = limiter.consume(bucket, "k");
        assertWait(bucket, second, Duration.ofSeconds(2));
        assertThat(limiter.refund(List.of(Refunds.refund(bucket, "k", 1, second, 0)))).isTrue();
        assertWait(bucket, limiter.consume(bucket, "k"), Duration.ofSeconds(2));
        assertWait(bucket, limiter.consume(bucket, "k"), Duration.ofSeconds(3));
    }

    @Test
    @Requires(DEBITS)
    @DisplayName("a debit (a cost settled above what was reserved) keeps the reservations queued: what is owed stays "
            + "at most a full refill plus max-wait, so the next call is still refused")
    void debitKeepsTheQueue() {
        Bucket bucket = partner("reserve-debit");
        Verdict first = limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        for (int i = 0; i < 3; i++) {
            limiter.consume(bucket, "k");
        }
        assertThat(limiter.refund(List.of(Refunds.refund(bucket, "k", -1, first, 0)))).isTrue();
        assertThat(limiter.consume(bucket, "k").outcome()).as("behind the three reserved").isEqualTo(Outcome.DENIED);
    }
}
