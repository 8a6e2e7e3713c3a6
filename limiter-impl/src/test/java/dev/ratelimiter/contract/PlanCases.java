package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.ratelimiter.contract.Capability.SLIDING_WINDOW;
import static dev.ratelimiter.contract.Capability.TOKEN_BUCKET;
import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans (docs/plans.md): a plan changes a bucket's limits for some keys, never its windows nor its algorithm, and a
 * store counts by bucket name and key, so a key keeps its count when its plan changes and is compared with the plan's
 * limits from its next call. Every store runs the fixed-window cases; the token-bucket and sliding-window ones need
 * their algorithm. Windows are long, or waited for in whole seconds, so a store timed by its own clock runs these
 * cases too.
 */
abstract class PlanCases extends ContractCases {

    PlanCases(RateLimiterContract contract) {
        super(contract);
    }

    @Test
    @DisplayName("plans: a key counted 4 times under 10 per 60 s, then decided under a plan of 100, keeps its count: "
            + "remaining 100 - 5; back under 10, remaining 10 - 6")
    void planChangeKeepsCount() {
        planChangeKeepsCount(bucket("plan-keeps", limit(10, Duration.ofSeconds(60))));
    }

    @Test
    @Requires(SLIDING_WINDOW)
    @DisplayName("plans, sliding window: a key keeps its count when its plan changes, up and back")
    void slidingWindowPlanChangeKeepsCount() {
        planChangeKeepsCount(slidingWindow("sw-plan-keeps", limit(10, Duration.ofSeconds(60))));
    }

    private void planChangeKeepsCount(Bucket free) {
        Bucket pro = free.withPlan("pro", List.of(limit(100, Duration.ofSeconds(60))), 0);
        for (int i = 0; i < 4; i++) {
            assertThat(limiter.consume(free, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        Verdict upgraded = limiter.consume(pro, "k");
        assertThat(upgraded.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(upgraded.limit()).isEqualTo(pro.limit());
        assertThat(upgraded.remaining()).as("the plan's limit less the 4 counted before and this call")
                .isEqualTo(pro.limit() - 5);
        Verdict back = limiter.consume(free, "k");
        assertThat(back.limit()).isEqualTo(free.limit());
        assertThat(back.remaining()).as("every call counted once, whatever its plan").isEqualTo(free.limit() - 6);
    }

    @Test
    @DisplayName("plans: a lower plan applies to the count already made: refused at and above its limit, counting "
            + "nothing, with a Retry-After that is true (refused a second before it, allowed at it)")
    void lowerPlanAppliesToCountMade() {
        Bucket free = bucket("plan-lower", limit(4, Duration.ofSeconds(2)));
        Verdict last = lowerPlanRefuses(free);
        Verdict refused = limiter.consume(trial(free), "k");
        assertThat(refused.resetAfter()).as("the window's end, which did not move")
                .isLessThanOrEqualTo(last.resetAfter()).isPositive();
        assertRetryAfterTrue(trial(free), "k", refused);
    }

    @Test
    @Requires(SLIDING_WINDOW)
    @DisplayName("plans, sliding window: a lower plan applies to the count already made, with a true Retry-After "
            + "past the window's end")
    void slidingWindowLowerPlanAppliesToCountMade() {
        Bucket free = slidingWindow("sw-plan-lower", limit(4, Duration.ofSeconds(2)));
        lowerPlanRefuses(free);
        Verdict refused = limiter.consume(trial(free), "k");
        assertThat(refused.resetAfter()).as("the count made weighs on past the window's end")
                .isGreaterThan(Duration.ofSeconds(2)).isLessThanOrEqualTo(Duration.ofSeconds(4));
        assertRetryAfterTrue(trial(free), "k", refused);
    }

    /** The trial plan of a one-window bucket: half its limit. */
    private static Bucket trial(Bucket free) {
        return free.withPlan("trial", List.of(limit(free.limit() / 2, free.window())), 0);
    }

    /**
     * Counts key {@code k} 3 times and key {@code at} 2 times under {@code free} (a limit of 4), then decides them
     * under {@link #trial} (2): both refused, counting nothing. Returns {@code k}'s last allowed verdict.
     */
    private Verdict lowerPlanRefuses(Bucket free) {
        Bucket trial = trial(free);
        Verdict last = null;
        for (int i = 0; i < 3; i++) {
            last = limiter.consume(free, "k");
            assertThat(last.outcome()).isEqualTo(Outcome.ALLOWED);
        }
        for (int i = 0; i < trial.limit(); i++) {
            assertThat(limiter.consume(free, "at").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        Verdict above = limiter.consume(trial, "k");
        assertThat(above.outcome()).as("3 counted, above the plan's 2").isEqualTo(Outcome.DENIED);
        assertThat(above.limit()).isEqualTo(trial.limit());
        assertThat(above.remaining()).isZero();
        assertThat(limiter.consume(trial, "at").outcome()).as("2 counted, at the plan's 2").isEqualTo(
                Outcome.DENIED);
        assertThat(limiter.consume(free, "at").remaining()).as("the refusals counted nothing")
                .isEqualTo(free.limit() - trial.limit() - 1);
        return last;
    }

    @Test
    @DisplayName("plans: two keys on different plans of one bucket are counted apart, each against its own plan")
    void plansKeepKeysApart() {
        plansKeepKeysApart(bucket("plan-apart", limit(3, Duration.ofSeconds(60))));
    }

    @Test
    @Requires(SLIDING_WINDOW)
    @DisplayName("plans, sliding window: two keys on different plans of one bucket are counted apart")
    void slidingWindowPlansKeepKeysApart() {
        plansKeepKeysApart(slidingWindow("sw-plan-apart", limit(3, Duration.ofSeconds(60))));
    }

    private void plansKeepKeysApart(Bucket free) {
        Bucket pro = free.withPlan("pro", List.of(limit(10, Duration.ofSeconds(60))), 0);
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.consume(pro, "a").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(admitted(free, "b", 10)).as("b on free, untouched by a's 5").isEqualTo(free.limit());
        Verdict a = limiter.consume(pro, "a");
        assertThat(a.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(a.remaining()).as("a on pro, untouched by b's").isEqualTo(pro.limit() - 6);
    }

    @Test
    @DisplayName("plans with a limit per window: each window compared with the plan's own limit for it; a refusal "
            + "by one window of a lower plan counts in none")
    void planWithPerWindowLimits() {
        planWithPerWindowLimits(bucket("plan-windows", limit(3, Duration.ofSeconds(30)),
                limit(6, Duration.ofSeconds(60))));
    }

    @Test
    @Requires(SLIDING_WINDOW)
    @DisplayName("plans, sliding window: a plan with a limit per window")
    void slidingWindowPlanWithPerWindowLimits() {
        planWithPerWindowLimits(slidingWindow("sw-plan-windows", limit(3, Duration.ofSeconds(30)),
                limit(6, Duration.ofSeconds(60))));
    }

    private void planWithPerWindowLimits(Bucket free) {
        Bucket pro = free.withPlan("pro", List.of(limit(6, Duration.ofSeconds(30)), limit(20, Duration.ofSeconds(60))),
                0);
        Bucket lite = free.withPlan("lite", List.of(limit(2, Duration.ofSeconds(30)),
                limit(10, Duration.ofSeconds(60))), 0);
        assertThat(admitted(free, "k", 10)).isEqualTo(3);
        Verdict upgraded = limiter.consume(pro, "k");
        assertThat(upgraded.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(remaining(upgraded)).as("each window's plan limit less the 4 counted")
                .containsExactly(pro.limits().get(0).limit() - 4, pro.limits().get(1).limit() - 4);
        Verdict refused = limiter.consume(lite, "k");
        assertThat(refused.outcome()).as("4 counted, above the 30 s window's 2").isEqualTo(Outcome.DENIED);
        assertThat(remaining(refused)).containsExactly(0L, lite.limits().get(1).limit() - 4);
        assertThat(remaining(limiter.consume(pro, "k"))).as("the refusal counted in no window")
                .containsExactly(pro.limits().get(0).limit() - 5, pro.limits().get(1).limit() - 5);
    }

    // Token buckets under plans: the key's state is each window's theoretical arrival time (TAT), the instant it is
    // full again, which a plan change keeps; it is read under the call's bucket (its capacity and token interval),
    // owing at most a full refill (docs/plans.md). OwedTokens applies that rule at one instant; the numbers are chosen
    // so that the few milliseconds a store timed by its own clock lets pass change no whole token.

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("plans, token bucket: 4 tokens taken under 10 per 60 s, then a plan of 100 per 60 s: the time owed "
            + "until full carries, read in the plan's tokens; and back")
    void tokenBucketPlanChangeKeepsCount() {
        Bucket free = tokenBucket("tb-plan-keeps", 0, limit(10, Duration.ofSeconds(60)));
        Bucket pro = free.withPlan("pro", List.of(limit(100, Duration.ofSeconds(60))), 0);
        OwedTokens model = new OwedTokens(1);
        for (int i = 0; i < 4; i++) {
            assertThat(decided(free, "k", model).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        Verdict upgraded = decided(pro, "k", model);
        assertThat(upgraded.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(upgraded.remaining()).as("more than free's, fewer than a full pro bucket's")
                .isGreaterThan(capacity(free, 0)).isLessThan(capacity(pro, 0) - 1);
        assertThat(decided(free, "k", model).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("plans, token bucket: a lower plan applies to the tokens already taken: refused when the time owed "
            + "leaves it no token, with a true Retry-After")
    void tokenBucketLowerPlanAppliesToCountMade() {
        Bucket free = tokenBucket("tb-plan-lower", 0, limit(4, Duration.ofSeconds(2)));
        Bucket trial = trial(free);
        OwedTokens k = new OwedTokens(1);
        OwedTokens at = new OwedTokens(1);
        for (int i = 0; i < 3; i++) {
            assertThat(decided(free, "k", k).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        for (int i = 0; i < 4; i++) {
            assertThat(decided(free, "at", at).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        Verdict refused = decided(trial, "k", k);
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(decided(trial, "at", at).outcome()).as("owing a full trial bucket").isEqualTo(Outcome.DENIED);
        Duration expected = Duration.ofNanos(k.wait(trial) * 1_000);
        assertThat(refused.resetAfter()).as("until the plan's token is there")
                .isBetween(expected.minusMillis(250), expected);
        assertRetryAfterTrue(trial, "k", refused);
    }

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("plans, token bucket: two keys on different plans of one bucket are counted apart")
    void tokenBucketPlansKeepKeysApart() {
        Bucket free = tokenBucket("tb-plan-apart", 0, limit(3, Duration.ofSeconds(60)));
        Bucket pro = free.withPlan("pro", List.of(limit(10, Duration.ofSeconds(60))), 0);
        OwedTokens a = new OwedTokens(1);
        for (int i = 0; i < 5; i++) {
            assertThat(decided(pro, "a", a).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(admitted(free, "b", 10)).as("b on free, untouched by a's 5").isEqualTo(capacity(free, 0));
        assertThat(decided(pro, "a", a).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("plans, token bucket: a plan with a capacity and rate per window; a refusal by one window of a "
            + "lower plan takes from none")
    void tokenBucketPlanWithPerWindowLimits() {
        Bucket free = tokenBucket("tb-plan-windows", 0, limit(4, Duration.ofSeconds(20)),
                limit(10, Duration.ofSeconds(60)));
        Bucket pro = free.withPlan("pro", List.of(limit(8, Duration.ofSeconds(20)), limit(100, Duration.ofSeconds(60))),
                0);
        Bucket lite = free.withPlan("lite", List.of(limit(2, Duration.ofSeconds(20)),
                limit(50, Duration.ofSeconds(60))), 0);
        OwedTokens model = new OwedTokens(2);
        for (int i = 0; i < 3; i++) {
            assertThat(decided(free, "k", model).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(decided(pro, "k", model).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(decided(lite, "k", model).outcome()).as("the 20 s window owes more than lite's token")
                .isEqualTo(Outcome.DENIED);
        assertThat(decided(pro, "k", model).outcome()).as("the refusal took nothing").isEqualTo(Outcome.ALLOWED);
    }

    /**
     * Decides one call of cost 1 and checks it against the token bucket's rule: the outcome the model gives, and
     * each window's whole tokens left; the model takes the call when it is allowed.
     */
    private Verdict decided(Bucket bucket, String key, OwedTokens model) {
        model.clamp(bucket);
        boolean fits = model.fits(bucket);
        if (fits) {
            model.take(bucket);
        }
        Verdict verdict = limiter.consume(bucket, key);
        assertThat(verdict.outcome()).as("%s under %s", key, bucket.plan())
                .isEqualTo(fits ? Outcome.ALLOWED : Outcome.DENIED);
        List<Long> left = bucket.hasSeveralWindows() ? remaining(verdict) : List.of(verdict.remaining());
        assertThat(left).as("%s under %s: tokens left", key, bucket.plan()).isEqualTo(model.left(bucket));
        return verdict;
    }
}
