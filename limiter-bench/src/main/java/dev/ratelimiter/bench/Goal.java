package dev.ratelimiter.bench;

import java.math.BigDecimal;
import java.util.Optional;

/**
 * A ratio the project has set itself: the row's figure divided by its anchor should be at least, or at most,
 * {@code ratio}, and must be at least, or at most, {@code mustHold} (issue 54: a missed must-hold is said as missed,
 * never folded into the goals).
 *
 * @param ratio    the goal
 * @param mustHold the bound the ratio must hold, on the goal's side of it or equal to it; {@code NaN} when the issue
 *                 set no bound apart from the goal
 * @param atLeast  true for a throughput goal ({@code >=}), false for a cost goal ({@code <=})
 * @param issue    the issue that set the goal, such as 11
 * @param name     the goal in a few words, naming it in BENCHMARKS.md's list of missed goals
 * @param closing  what would close the goal when a run misses it, printed under the goals table
 */
public record Goal(double ratio, double mustHold, boolean atLeast, int issue, String name, String closing) {

    public Goal {
        if (issue <= 0) {
            throw new IllegalArgumentException("a goal names the issue that set it: " + name);
        }
        if (!Double.isNaN(mustHold) && (atLeast ? mustHold > ratio : mustHold < ratio)) {
            throw new IllegalArgumentException("must-hold " + mustHold + " is past the goal " + ratio + ": " + name);
        }
    }

    static Optional<Goal> none() {
        return Optional.empty();
    }

    /** A throughput goal of {@code issue} with no must-hold apart from it. */
    static Optional<Goal> atLeast(int issue, double ratio, String name, String closing) {
        return Optional.of(new Goal(ratio, Double.NaN, true, issue, name, closing));
    }

    /** A throughput goal of {@code issue} and the lower bound it must hold. */
    static Optional<Goal> atLeast(int issue, double ratio, double mustHold, String name, String closing) {
        return Optional.of(new Goal(ratio, mustHold, true, issue, name, closing));
    }

    /** A cost goal of {@code issue} with no must-hold apart from it. */
    static Optional<Goal> atMost(int issue, double ratio, String name, String closing) {
        return Optional.of(new Goal(ratio, Double.NaN, false, issue, name, closing));
    }

    /** A cost goal of {@code issue} and the upper bound it must hold. */
    static Optional<Goal> atMost(int issue, double ratio, double mustHold, String name, String closing) {
        return Optional.of(new Goal(ratio, mustHold, false, issue, name, closing));
    }

    boolean met(double measured) {
        return atLeast ? measured >= ratio : measured <= ratio;
    }

    /** Whether {@code measured} holds the must-hold; empty when there is none apart from the goal. */
    Optional<Boolean> held(double measured) {
        if (Double.isNaN(mustHold)) {
            return Optional.empty();
        }
        return Optional.of(atLeast ? measured >= mustHold : measured <= mustHold);
    }

    /** The must-hold as the goal is written, {@code ≥ 1}; empty when there is none apart from the goal. */
    Optional<String> mustHoldText() {
        return Double.isNaN(mustHold) ? Optional.empty() : Optional.of(bound(mustHold));
    }

    @Override
    public String toString() {
        return bound(ratio);
    }

    private String bound(double value) {
        return (atLeast ? "≥ " : "≤ ") + BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
