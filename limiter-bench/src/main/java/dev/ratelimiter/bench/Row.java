package dev.ratelimiter.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One line of a section's table: a figure of the library beside the figure it is compared with, from the same run.
 *
 * @param what   the measurement, such as {@code Valkey, 16 threads, 10 000 keys}
 * @param figure the library's figure
 * @param anchor the figure it is compared with (same unit, or both per second: a permit's pairs/s beside a
 *               tool's decisions/s), if any
 * @param goal   the project's goal for {@code figure / anchor}, if it has one
 */
public record Row(String what, Figure figure, Optional<Figure> anchor, Optional<Goal> goal) {

    static Row of(String what, Figure figure, Figure anchor, Optional<Goal> goal) {
        return new Row(what, figure, Optional.of(anchor), goal);
    }

    static Row alone(String what, Figure figure) {
        return new Row(what, figure, Optional.empty(), Optional.empty());
    }

    /**
     * The row of several measurements of one comparison: the pair (figure, anchor) whose ratio is the median (the
     * lower middle one of an even count), its figure's details joined by {@code count} (the pairs' number, under the
     * name {@code countName}) and {@code ratio_min} and {@code ratio_max}, the lowest and highest ratio. An anchor
     * of 0 sorts last.
     */
    static Row medianByRatio(String what, List<Figure[]> pairs, String countName, Optional<Goal> goal) {
        List<Figure[]> sorted = new ArrayList<>(pairs);
        sorted.sort(Comparator.comparingDouble(Row::ratio));
        Figure[] median = sorted.get((sorted.size() - 1) / 2);
        Map<String, Double> details = new LinkedHashMap<>(median[0].details());
        details.put(countName, (double) sorted.size());
        details.put("ratio_min", ratio(sorted.get(0)));
        details.put("ratio_max", ratio(sorted.get(sorted.size() - 1)));
        return of(what, new Figure(median[0].source(), median[0].value(), median[0].unit(), details), median[1],
                goal);
    }

    private static double ratio(Figure[] pair) {
        return pair[1].value() == 0 ? Double.POSITIVE_INFINITY : pair[0].value() / pair[1].value();
    }

    /** figure / anchor; empty without an anchor or when the anchor is 0. */
    Optional<Double> ratio() {
        return anchor.filter(a -> a.value() != 0).map(a -> figure.value() / a.value());
    }
}
