package dev.ratelimiter.bench;

import java.util.Optional;

/**
 * One line of a section's table: a figure of the library beside the figure it is compared with, from the same run.
 *
 * @param what   the measurement, such as {@code Valkey, 16 threads, 10 000 keys}
 * @param figure the library's figure
 * @param anchor the figure it is compared with (same unit), if any
 * @param goal   the project's goal for {@code figure / anchor}, if it has one
 */
public record Row(String what, Figure figure, Optional<Figure> anchor, Optional<Goal> goal) {

    static Row of(String what, Figure figure, Figure anchor, Optional<Goal> goal) {
        return new Row(what, figure, Optional.of(anchor), goal);
    }

    static Row alone(String what, Figure figure) {
        return new Row(what, figure, Optional.empty(), Optional.empty());
    }

    /** figure / anchor; empty without an anchor or when the anchor is 0. */
    Optional<Double> ratio() {
        return anchor.filter(a -> a.value() != 0).map(a -> figure.value() / a.value());
    }
}
