package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quota leases' bound (docs/guide.md#quota-leases-for-hot-keys) over random interleavings: several replicas, each
 * a {@link QuotaLeaseLimiter} over one shared store, call one key at random costs while time moves, idle leases are
 * given back, and replicas die with their leases held and are replaced. Whatever the order, a fixed window never
 * admits more than its limit, and a token bucket never more than its capacity plus what it refilled since.
 */
class QuotaLeasePropertyTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration WINDOW = Duration.ofSeconds(10);
    private static final Duration IDLE = Duration.ofMillis(500);

    /** One step of a run: a call (cost 1 to 3) on a replica, time passing, a sweep, or a replica dying. */
    record Step(int kind, int replica, int amount) {
        static final int CALL = 0;
        static final int ADVANCE = 1;
        static final int SWEEP = 2;
        static final int KILL = 3;
    }

    @Property(tries = 300)
    void fixedWindowNeverAdmitsPastItsLimit(@ForAll @IntRange(min = 1, max = 200) int limit,
                                            @ForAll @IntRange(min = 1, max = 100) int percent,
                                            @ForAll @IntRange(min = 1, max = 6) int replicas,
                                            @ForAll("steps") List<Step> steps) {
        Bucket bucket = Bucket.of("hot", limit, WINDOW);
        Run run = new Run(bucket, percent, replicas);
        long windowEnd = Long.MIN_VALUE;
        long admitted = 0;
        for (Step step : steps) {
            if (step.kind() == Step.CALL) {
                long now = run.nanos.getAsLong();
                Verdict verdict = run.call(step);
                if (verdict.isAllowed()) {
                    if (now >= windowEnd) { // the store's window of the key opened at this call's take or later
                        windowEnd = now + WINDOW.toNanos();
                        admitted = 0;
                    }
                    admitted += step.amount();
                    assertThat(admitted).as("attempts admitted in one window of limit %d", limit)
                            .isLessThanOrEqualTo(limit);
                }
            } else {
                run.other(step);
            }
        }
    }

    @Property(tries = 300)
    void tokenBucketNeverAdmitsPastItsRefill(@ForAll @IntRange(min = 1, max = 200) int limit,
                                             @ForAll @IntRange(min = 1, max = 100) int percent,
                                             @ForAll @IntRange(min = 1, max = 6) int replicas,
                                             @ForAll("steps") List<Step> steps) {
        Bucket bucket = Bucket.of("hot", List.of(new Limit(limit, WINDOW)), OutagePolicy.FALLBACK,
                Algorithm.TOKEN_BUCKET, 0);
        Run run = new Run(bucket, percent, replicas);
        long admitted = 0;
        for (Step step : steps) {
            if (step.kind() == Step.CALL) {
                if (run.call(step).isAllowed()) {
                    admitted += step.amount();
                    double refilled = (double) run.elapsedNanos() / WINDOW.toNanos() * limit;
                    assertThat((double) admitted).as("tokens used against a capacity of %d", limit)
                            .isLessThanOrEqualTo(limit + Math.floor(refilled) + 1);
                }
            } else {
                run.other(step);
            }
        }
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> call = Combinators.combine(Arbitraries.integers().between(0, 5),
                Arbitraries.integers().between(1, 3)).as((replica, cost) -> new Step(Step.CALL, replica, cost));
        Arbitrary<Step> advance = Arbitraries.integers().between(1, 4_000)
                .map(millis -> new Step(Step.ADVANCE, 0, millis));
        Arbitrary<Step> sweep = Arbitraries.integers().between(0, 5).map(replica -> new Step(Step.SWEEP, replica, 0));
        Arbitrary<Step> kill = Arbitraries.integers().between(0, 5).map(replica -> new Step(Step.KILL, replica, 0));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(12, call), net.jqwik.api.Tuple.of(3, advance),
                net.jqwik.api.Tuple.of(2, sweep), net.jqwik.api.Tuple.of(1, kill)).list().ofMinSize(1).ofMaxSize(300);
    }

    /** The shared store and its replicas, on one manual clock. */
    private static final class Run {
        final ManualClock clock = new ManualClock(START);
        final LongSupplier nanos = () -> Duration.between(START, clock.instant()).toNanos();
        final MemoryRateLimiter store = new MemoryRateLimiter(clock, 10_000);
        final Bucket bucket;
        final int percent;
        final List<QuotaLeaseLimiter> replicas = new ArrayList<>();

        Run(Bucket bucket, int percent, int count) {
            this.bucket = bucket;
            this.percent = percent;
            for (int i = 0; i < count; i++) {
                replicas.add(replica());
            }
        }

        QuotaLeaseLimiter replica() {
            return new QuotaLeaseLimiter(store, Map.of(bucket.name(), new QuotaLeaseSettings(percent, IDLE)),
                    RateLimiterMetrics.NONE, nanos);
        }

        Verdict call(Step step) {
            return replicas.get(step.replica() % replicas.size()).consume(bucket, "k", step.amount());
        }

        void other(Step step) {
            int replica = step.replica() % replicas.size();
            switch (step.kind()) {
                case Step.ADVANCE -> clock.advance(Duration.ofMillis(step.amount()));
                case Step.SWEEP -> replicas.get(replica).sweep();
                default -> replicas.set(replica, replica()); // killed: its lease is never given back
            }
        }

        long elapsedNanos() {
            return nanos.getAsLong();
        }
    }
}
