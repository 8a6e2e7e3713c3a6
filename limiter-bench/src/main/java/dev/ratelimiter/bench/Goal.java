package dev.ratelimiter.bench;

import java.util.Optional;

/**
 * A ratio the project has set itself (issue 11): the row's figure divided by its anchor must be at least, or at
 * most, {@code ratio}.
 *
 * @param atLeast true for a throughput goal ({@code >=}), false for a cost goal ({@code <=})
 */
public record Goal(double ratio, boolean atLeast) {

    static Optional<Goal> none() {
        return Optional.empty();
    }

    static Optional<Goal> atLeast(double ratio) {
        return Optional.of(new Goal(ratio, true));
    }

    static Optional<Goal> atMost(double ratio) {
        return Optional.of(new Goal(ratio, false));
    }

    boolean met(double measured) {
        return atLeast ? measured >= ratio : measured <= ratio;
    }

    @Override
    public String toString() {
        return (atLeast ? "≥ " : "≤ ") + java.math.BigDecimal.valueOf(ratio).stripTrailingZeros().toPlainString();
    }
}
