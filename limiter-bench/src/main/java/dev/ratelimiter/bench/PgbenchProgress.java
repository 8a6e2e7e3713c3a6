package dev.ratelimiter.bench;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * pgbench's steady rate, read from the per-second lines of {@code --progress=1} with a run's first seconds left out.
 * Every pgbench run connects its clients anew, and each new backend plans the statement for itself before its
 * plan is cached; with 64 clients on the 2-core benchmark machine the first second of a run gave 28 transactions
 * per second and the next ones 5 700 to 9 200, so a run's overall {@code tps} measured mostly its start. The
 * library's contenders are warm when measured (their JVM has run every earlier load, and each load is warmed
 * first), so the tool is measured warm too.
 *
 * @param tps            mean transactions per second over the intervals kept
 * @param latencyMillis  mean of those intervals' mean latencies, in milliseconds
 * @param intervals      how many intervals were kept
 */
record PgbenchProgress(double tps, double latencyMillis, int intervals) {

    // pgbench 15: "progress: 3.0 s, 6474.6 tps, lat 8.783 ms stddev 4.022, 0 failed"
    private static final Pattern LINE = Pattern.compile(
            "^progress: ([0-9.]+) s, ([0-9.]+) tps, lat ([0-9.]+) ms", Pattern.MULTILINE);

    /**
     * @param output      what {@code pgbench --progress=1 -T n} printed
     * @param coldSeconds the seconds from the run's start to leave out: an interval counts when it starts at or
     *                    after this time (each progress line ends a one-second interval)
     * @return the kept intervals' means
     * @throws IllegalStateException when no interval started that late: the run was too short for its cold start,
     *                               or pgbench printed no progress
     */
    static PgbenchProgress steady(String output, double coldSeconds) {
        Matcher line = LINE.matcher(output);
        double tps = 0;
        double latency = 0;
        int kept = 0;
        while (line.find()) {
            double end = Double.parseDouble(line.group(1));
            if (end - 1.0 >= coldSeconds - 0.05) {
                tps += Double.parseDouble(line.group(2));
                latency += Double.parseDouble(line.group(3));
                kept++;
            }
        }
        if (kept == 0) {
            throw new IllegalStateException("pgbench printed no progress after its first " + coldSeconds
                    + " s: " + output);
        }
        return new PgbenchProgress(tps / kept, latency / kept, kept);
    }
}
