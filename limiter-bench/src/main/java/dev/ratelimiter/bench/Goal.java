package dev.ratelimiter.bench;

import java.util.Optional;

/**
 * A ratio the project has set itself (issue 11): the row's figure divided by its anchor must be at least, or at
 * most, {@code ratio}.
 *
 * @param ratio   the bound
 * @param atLeast true for a throughput goal ({@code >=}), false for a cost goal ({@code <=})
 * @param name    the goal in a few words, naming it in BENCHMARKS.md's list of missed goals
 * @param closing what would close the goal when a run misses it, printed under the goals table
 */
public record Goal(double ratio, boolean atLeast, String name, String closing) {

    static Optional<Goal> none() {
        return Optional.empty();
    }

    static Optional<Goal> atLeast(double ratio, String name, String closing) {
        return Optional.of(new Goal(ratio, true, name, closing));
    }

    static Optional<Goal> atMost(double ratio, String name, String closing) {
        return Optional.of(new Goal(ratio, false, name, closing));
    }

    boolean met(double measured) {
        return atLeast ? measured >= ratio : measured <= ratio;
    }

    @Override
    public String toString() {
        return (atLeast ? "≥ " : "≤ ") + java.math.BigDecimal.valueOf(ratio).stripTrailingZeros().toPlainString();
    }
}
