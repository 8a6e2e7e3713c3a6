package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.spi.StorePermit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.ratelimiter.contract.Capability.CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Concurrency limits ({@code RateLimitStore.take}, {@code giveBack}, {@code renew}; docs/stores.md#permits): at most
 * the limit of permits per key, each a lease with a deadline on the store's clock, taken, renewed and given back by
 * id, so that a take or a give-back sent twice counts once and a replica that dies frees its permits within a lease.
 * Run against a store whose provider declares {@code CONCURRENCY} among its algorithms.
 */
@Requires(CONCURRENCY)
abstract class PermitCases extends ContractCases {

    private static final int THREADS_PER_REPLICA = 8;
    private static final int ROUNDS = 40;

    PermitCases(RateLimiterContract contract) {
        super(contract);
    }

    @Test
    @DisplayName("take: the limit's permits are taken, the next call is refused with none left and Retry-After 1 s, "
            + "and a permit given back lets one more in")
    void takeAndGiveBack() {
        Bucket bucket = concurrencyBucket("permits", 2, Duration.ofSeconds(30));
        StorePermit first = permit(bucket, "k");
        assertThat(limiter.take(first).outcome()).isEqualTo(Outcome.ALLOWED);
        Verdict second = limiter.take(permit(bucket, "k"));
        assertThat(second.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(second.remaining()).isZero();

        Verdict third = limiter.take(permit(bucket, "k"));
        assertThat(third.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(third.limit()).isEqualTo(2);
        assertThat(third.remaining()).isZero();
        assertThat(third.retryAfterSeconds()).isEqualTo(1);
        assertThat(limiter.take(permit(bucket, "other")).outcome()).as("another key has its own permits")
                .isEqualTo(Outcome.ALLOWED);

        assertThat(limiter.giveBack(List.of(first))).isTrue();
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("a give-back sent twice, or of a permit never taken, frees nothing more: the permits held never drop "
            + "below those really held")
    void giveBackIsIdempotent() {
        Bucket bucket = concurrencyBucket("permits-twice", 3, Duration.ofSeconds(30));
        StorePermit a = permit(bucket, "k");
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.take(i == 0 ? a : permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        limiter.giveBack(List.of(a));
        limiter.giveBack(List.of(a, a));
        limiter.giveBack(List.of(permit(bucket, "k"), permit(bucket, "never")));

        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.take(permit(bucket, "k")).outcome()).as("only a's permit was freed")
                .isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("a take sent twice with one id holds one permit, and a check counts without taking")
    void takeIsIdempotentAndACheckTakesNothing() {
        Bucket bucket = concurrencyBucket("permits-retry", 2, Duration.ofSeconds(30));
        StorePermit retried = permit(bucket, "k");
        assertThat(limiter.take(retried).outcome()).isEqualTo(Outcome.ALLOWED);
        Verdict again = limiter.take(retried);
        assertThat(again.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(again.remaining()).as("still one permit held").isEqualTo(1);

        Verdict check = limiter.take(new StorePermit(bucket, "k", StorePermit.CHECK));
        assertThat(check.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(check.remaining()).isEqualTo(1);
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
        Verdict full = limiter.take(new StorePermit(bucket, "k", StorePermit.CHECK));
        assertThat(full.outcome()).as("a check is refused when a take would be").isEqualTo(Outcome.DENIED);
        assertThat(full.remaining()).isZero();
    }

    @Test
    @DisplayName("a replica killed with its permits held: the other replica is refused until their leases end, then "
            + "takes them")
    void leaseExpiryFreesADeadReplicasPermits() {
        Bucket bucket = concurrencyBucket("permits-dead", 2, Duration.ofSeconds(1));
        Limiter dying = replica();
        assertThat(dying.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(dying.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
        // the replica dies here: no give-back, no renewal

        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.DENIED);
        time().advance(Duration.ofMillis(1_200));
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("renewal: a call that outlives its lease keeps its permit while it is renewed, and loses it once not")
    void renewalKeepsAPermit() {
        Bucket bucket = concurrencyBucket("permits-renewed", 1, Duration.ofSeconds(2));
        StorePermit held = permit(bucket, "k");
        assertThat(limiter.take(held).outcome()).isEqualTo(Outcome.ALLOWED);
        time().advance(Duration.ofMillis(1_500));
        // null: the chain could not ask the store (a fallback deciding in an outage renews its own leases all the same)
        assertThat(limiter.renew(List.of(held))).as("renewed before its lease ended")
                .satisfiesAnyOf(answer -> assertThat(answer).isNull(),
                        answer -> assertThat(answer).containsExactly(true));
        time().advance(Duration.ofMillis(1_500)); // 3 s after the take, 1.5 s after the renewal
        assertThat(limiter.take(permit(bucket, "k")).outcome()).as("still held").isEqualTo(Outcome.DENIED);

        time().advance(Duration.ofMillis(700)); // 2.2 s after the renewal: its lease has ended
        assertThat(limiter.renew(List.of(held))).as("a lease that ended is not taken again")
                .satisfiesAnyOf(answer -> assertThat(answer).isNull(),
                        answer -> assertThat(answer).containsExactly(false));
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("a reset clears the key's permits")
    void resetClearsPermits() {
        Bucket bucket = concurrencyBucket("permits-reset", 1, Duration.ofSeconds(30));
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.DENIED);
        limiter.reset(bucket, "k");
        assertThat(limiter.take(permit(bucket, "k")).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("exactly the limit in flight, never one more, with two replicas and 16 threads taking and giving "
            + "back on one key, and every permit free at the end")
    void exactUnderRaces() throws Exception {
        long permits = 3;
        Bucket bucket = concurrencyBucket("permits-race", permits, Duration.ofSeconds(30));
        Limiter[] replicas = {limiter, replica()};
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        int threads = 2 * THREADS_PER_REPLICA;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Limiter replica = replicas[t % 2];
                done.add(pool.submit(() -> {
                    start.await();
                    for (int round = 0; round < ROUNDS; round++) {
                        StorePermit permit = permit(bucket, "hot");
                        if (replica.take(permit).outcome() == Outcome.ALLOWED) {
                            admitted.incrementAndGet();
                            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                            Thread.onSpinWait();
                            inFlight.decrementAndGet();
                            replica.giveBack(List.of(permit));
                            // a give-back sent again, as a retry would: it must free nothing more
                            replica.giveBack(List.of(permit));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(admitted.get()).as("some calls got through").isPositive();
        assertThat(most.get()).as("never more than the limit in flight").isLessThanOrEqualTo((int) permits);
        Verdict after = limiter.take(new StorePermit(bucket, "hot", StorePermit.CHECK));
        assertThat(after.remaining()).as("every permit given back, none lost nor doubled").isEqualTo(permits);
    }

    /** A permit of a fresh random id, as the decision path draws one. */
    static StorePermit permit(Bucket bucket, String key) {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == StorePermit.CHECK);
        return new StorePermit(bucket, key, id);
    }
}
