package dev.ratelimiter.bench;

import java.util.List;

/**
 * One part of the benchmark: what it measures, how it was run, and its rows.
 *
 * @param title   the heading in BENCHMARKS.md
 * @param method  how the figures were produced (tools, commands, loads), one paragraph of Markdown
 * @param rows    the table
 */
public record Section(String title, String method, List<Row> rows) {

    public Section {
        rows = List.copyOf(rows);
        if (rows.isEmpty()) {
            throw new IllegalStateException("section '" + title + "' measured nothing");
        }
        for (Row row : rows) {
            if (!(row.figure().value() >= 0) || Double.isInfinite(row.figure().value())) {
                throw new IllegalStateException("section '" + title + "', row '" + row.what() + "': figure "
                        + row.figure() + " is not a number of zero or more");
            }
        }
    }
}
