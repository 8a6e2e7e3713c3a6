package dev.ratelimiter.bench;

import java.util.Optional;
import java.util.function.Function;

/**
 * A row template of the store section: the figure of one contender beside another's, under every load, with the
 * project's goal for that load if it has one. Both figures are per second (decisions, or pairs of calls).
 *
 * @param figure the contender whose figure the row reports (by {@link Contender#name()})
 * @param anchor the contender it is compared with
 * @param goal   the goal for figure / anchor under a load (issue 11), empty where the project sets none
 * @param what   the row's name after its load's: {@code figure / anchor}, or words that say what each counts
 *               where they count different things per second
 */
record Comparison(String figure, String anchor, Function<Load, Optional<Goal>> goal, String what) {

    static Comparison of(String figure, String anchor) {
        return new Comparison(figure, anchor, load -> Optional.empty(), figure + " / " + anchor);
    }

    static Comparison withGoal(String figure, String anchor, Function<Load, Optional<Goal>> goal) {
        return new Comparison(figure, anchor, goal, figure + " / " + anchor);
    }

    /** This comparison, its rows named {@code what} after their load's. */
    Comparison named(String what) {
        return new Comparison(figure, anchor, goal, what);
    }
}
