package dev.ratelimiter.it.ops;

import java.util.Set;
import java.util.TreeSet;

/**
 * The series names a server's metrics endpoint exposes, read from its sample lines (Prometheus text format 0.0.4,
 * also OpenMetrics): the name before {@code {} or the first blank, {@code #} lines and blank lines skipped.
 *
 * <p>Sample names, not the metric family names of {@code # TYPE} lines, since they are what Prometheus stores and
 * a query selects, suffixes included. The suffixes differ by exporter and type, and that is the point of comparing
 * with them: a counter's samples end in {@code _total} (MicroProfile Metrics 5 on Payara and Open Liberty, and
 * Micrometer's Prometheus registry on Quarkus, alike), while an OpenMetrics {@code # TYPE} line names its family
 * without it; a timer's samples include {@code <name>_seconds_count} and {@code _sum} on every exporter, while its
 * other samples ({@code _max}, quantiles) differ by server, and none writes {@code _bucket} (no histogram is
 * published). A query must therefore name each series with the suffix every exporter writes: the server modules
 * run this check each on its own scrape, so a suffix only one exporter writes fails on the others.
 */
public final class ScrapedSeries {

    private ScrapedSeries() {
    }

    /**
     * @param exposition the body of a metrics endpoint
     * @return the series names of its samples, sorted
     */
    public static Set<String> names(String exposition) {
        Set<String> names = new TreeSet<>();
        exposition.lines().map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#"))
                .forEach(line -> {
                    int end = 0;
                    while (end < line.length() && line.charAt(end) != '{' && !Character.isWhitespace(line.charAt(end))) {
                        end++;
                    }
                    names.add(line.substring(0, end));
                });
        return names;
    }
}
