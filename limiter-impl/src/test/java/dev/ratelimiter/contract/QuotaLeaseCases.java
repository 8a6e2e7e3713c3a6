package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.QuotaLeaseLimiter;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.function.LongSupplier;

import static dev.ratelimiter.contract.Capability.REFUNDS;
import static dev.ratelimiter.contract.Capability.TOKEN_BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Quota leases for hot keys (docs/guide.md#quota-leases-for-hot-keys), made of what a store already decides: a lease
 * is a consume of many attempts at once and its unused part a refund into the window it was counted in. Each replica
 * is a {@link QuotaLeaseLimiter} over its own chain of the same store. Run against a store that gives counts back.
 */
@Requires(REFUNDS)
abstract class QuotaLeaseCases extends ContractCases {

    private static final Duration IDLE = Duration.ofSeconds(1);

    QuotaLeaseCases(RateLimiterContract contract) {
        super(contract);
    }

    @Test
    @DisplayName("a lease: the key's first call goes alone, the second takes a share of its quota in one round trip, "
            + "and the calls after it are decided without the store")
    void leaseAndLocalDecisions() {
        Bucket bucket = bucket("lease", 100, Duration.ofMinutes(1));
        CountingLimiter store = new CountingLimiter(limiter);
        QuotaLeaseLimiter replica = leasing(store, bucket, 10);

        for (int i = 0; i < 11; i++) {
            assertThat(replica.consume(bucket, "k", 1).outcome()).isEqualTo(Outcome.ALLOWED);
        }

        assertThat(store.calls()).as("the first call, then one lease of 10").isEqualTo(2);
        assertThat(check(bucket, "k").remaining()).as("the store counted the lease whole").isEqualTo(100 - 11);
    }

    @Test
    @DisplayName("never past the limit: two replicas leasing one key are allowed exactly the limit together, the last "
            + "leases sized from what the refusal says is left")
    void neverPastTheLimit() {
        Bucket bucket = bucket("lease-limit", 50, Duration.ofMinutes(1));
        QuotaLeaseLimiter a = leasing(limiter, bucket, 20);
        QuotaLeaseLimiter b = leasing(replica(), bucket, 20);

        int allowed = 0;
        boolean aRefused = false;
        boolean bRefused = false;
        for (int i = 0; i < 200 && !(aRefused && bRefused); i++) {
            Verdict verdict = (i % 3 == 0 ? b : a).consume(bucket, "k", 1);
            assertThat(verdict.outcome()).isNotEqualTo(Outcome.UNAVAILABLE);
            if (verdict.isAllowed()) {
                allowed++;
            } else if (i % 3 == 0) {
                bRefused = true;
            } else {
                aRefused = true;
            }
        }

        assertThat(allowed).isEqualTo(50);
        Verdict refused = a.consume(bucket, "k", 1);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.retryAfterSeconds()).as("the call's own refusal: the window's end").isBetween(1L, 60L);
    }

    @Test
    @DisplayName("an idle lease is given back into its window: another replica is allowed the unused part")
    void idleLeaseIsGivenBack() {
        Bucket bucket = bucket("lease-idle", 100, Duration.ofMinutes(1));
        QuotaLeaseLimiter a = leasing(limiter, bucket, 10);
        QuotaLeaseLimiter b = leasing(replica(), bucket, 10);
        a.consume(bucket, "k", 1);
        a.consume(bucket, "k", 1); // takes a lease of 10, uses 1 of it: 11 counted, 2 used
        assertThat(leftFor(b, bucket)).as("b gets what the store has left").isEqualTo(100 - 11);

        assertThat(a.sweep()).as("not idle yet").isZero();
        time().advance(IDLE.plusMillis(100));
        assertThat(a.sweep()).as("the idle lease is forgotten").isEqualTo(1);

        assertThat(leftFor(b, bucket)).as("the 9 unused attempts given back").isEqualTo(9);
    }

    @Test
    @DisplayName("when the application stops, each lease's unused part goes back to the store")
    void closeGivesLeasesBack() {
        Bucket bucket = bucket("lease-close", 100, Duration.ofMinutes(1));
        QuotaLeaseLimiter a = leasing(limiter, bucket, 10);
        a.consume(bucket, "k", 1);
        a.consume(bucket, "k", 1);

        a.close();

        assertThat(check(bucket, "k").remaining()).as("100 less the 2 calls made").isEqualTo(98);
    }

    @Test
    @DisplayName("a replica killed with a lease held: its quota is refused to the others until the window ends, then "
            + "the key starts afresh")
    void killedReplicaLeaseEndsWithItsWindow() {
        Bucket bucket = bucket("lease-killed", 20, Duration.ofSeconds(2));
        QuotaLeaseLimiter dying = leasing(replica(), bucket, 50);
        dying.consume(bucket, "k", 1);
        dying.consume(bucket, "k", 1); // a lease of 10 (50 % of 20), 1 of it used
        // the replica dies here: nothing given back
        QuotaLeaseLimiter other = leasing(limiter, bucket, 50);

        assertThat(leftFor(other, bucket)).isEqualTo(20 - 11);
        time().advance(Duration.ofSeconds(2));

        assertThat(other.consume(bucket, "k", 1).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("a lease holds only in the window it was counted in: after the window ends the next call takes a new "
            + "one, and the old one's unused part is not given back into the new window")
    void windowEndEndsTheLease() {
        Bucket bucket = bucket("lease-window", 20, Duration.ofSeconds(2));
        CountingLimiter store = new CountingLimiter(limiter);
        QuotaLeaseLimiter a = leasing(store, bucket, 25);
        a.consume(bucket, "k", 1);
        a.consume(bucket, "k", 1); // a lease of 5, 1 used: 4 left in this window
        long before = store.calls();

        time().advance(Duration.ofSeconds(2));
        assertThat(a.consume(bucket, "k", 1).outcome()).isEqualTo(Outcome.ALLOWED);

        assertThat(store.calls()).as("a new lease, no refund into the new window").isEqualTo(before + 1);
        assertThat(check(bucket, "k").remaining()).as("the new window holds only what its own lease counted")
                .isBetween(20L - 5, 20L - 1);
    }

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("a token bucket leases tokens, and an idle lease gives its unused tokens back")
    void tokenBucketLease() {
        Bucket bucket = tokenBucket("lease-tokens", 0, limit(40, Duration.ofHours(1)));
        QuotaLeaseLimiter a = leasing(limiter, bucket, 25);
        QuotaLeaseLimiter b = leasing(replica(), bucket, 25);
        a.consume(bucket, "k", 1);
        a.consume(bucket, "k", 1); // a lease of 10 tokens, 1 used: 11 taken, 2 used

        assertThat(check(bucket, "k").remaining()).isEqualTo(40 - 11);
        time().advance(IDLE.plusMillis(100));
        a.sweep();

        assertThat(leftFor(b, bucket)).as("29 left, and the 9 unused tokens given back").isEqualTo(38);
    }

    /** A replica that leases {@code percent} of {@code bucket}'s quota over {@code store}, on the contract's time. */
    private QuotaLeaseLimiter leasing(Limiter store, Bucket bucket, int percent) {
        return new QuotaLeaseLimiter(store, Map.of(bucket.name(), new QuotaLeaseSettings(percent, IDLE)),
                RateLimiterMetrics.NONE, nanos());
    }

    /**
     * The leases' monotonic clock: real time, plus the manual clock's moves, so the idle time and a window's end pass
     * for a lease whichever way the store under test lets time pass.
     */
    private LongSupplier nanos() {
        return () -> System.nanoTime() + Duration.between(RateLimiterContract.START, clock.instant()).toNanos();
    }

    /** The store's view of the key, without counting (cost 0). */
    private Verdict check(Bucket bucket, String key) {
        return limiter.consume(bucket, key, 0);
    }

    /** The calls {@code replica} is allowed on key k until its first refusal. */
    private static int leftFor(Limiter replica, Bucket bucket) {
        int allowed = 0;
        while (allowed < 1_000 && replica.consume(bucket, "k", 1).isAllowed()) {
            allowed++;
        }
        return allowed;
    }
}
