package dev.ratelimiter.bench;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Section 1: {@link InMemoryBenchmarks} under JMH with {@code -prof gc}, at 1 and 2 threads; then four 1-thread ratios
 * again ({@link #ALTERNATED}: the whole decision beside Bucket4j, issue 30's; the token bucket's and the sliding
 * window's and the calendar month's whole decisions beside the fixed window's, issues 31, 32 and 55), each in
 * {@link #ALTERNATIONS} alternating single-fork runs, for the median ratio their goals are on: one fork of either
 * benchmark moves by more than a goal's margin, since the JIT decides differently in each (the token bucket's whole
 * decision took 150 to 177 ns and the fixed window's 154 to 224 ns in four forks of one run). Figures in
 * nanoseconds per call (per pair for the permit row: a take and its give-back) and bytes per call ({@code B/op}).
 */
final class InMemorySection {

    /** What a row compares: figure, anchor (benchmark method names) and its goal, if any. */
    private record Pair(String label, String figure, String anchor, Optional<Goal> goal) {
    }

    private static final Pair TOKEN_DECISION = new Pair("token bucket / fixed window, whole decision",
            "tokenBucketDecision", "decision", Goal.atMost(31, 1.2, 1.25,
            "whole in-memory decision, token bucket / fixed window", "the decision around the store is the same for "
            + "both algorithms; must hold 1.25."));
    private static final Pair SLIDING_DECISION = new Pair(
            "sliding window / fixed window, whole decision", "slidingWindowDecision", "decision", Goal.atMost(32, 1.11,
            1.25, "whole in-memory decision, sliding window / fixed window", "the decision around the store is the "
            + "same for every algorithm; must hold 1.25."));
    private static final Pair CALENDAR_DECISION = new Pair(
            "calendar month / fixed window, whole decision", "calendarDecision", "decision", Goal.atMost(55, 1.11,
            1.11, "whole in-memory decision, calendar month / fixed window", "the same cell and decision; the "
            + "month's time left comes from the period kept (CalendarPeriods: a few comparisons); must hold 1.11 "
            + "(0.9 × the fixed window's rate)."));
    private static final Pair BUCKET4J = new Pair("whole decision / Bucket4j local tryConsume(1)",
            "decision", "bucket4jLocal", Goal.atMost(30, 2, 2, "whole in-memory decision / Bucket4j, median",
            "the decision's parts, measured alone with JMH and perfasm: the clock read (clock_gettime, "
            + "which Bucket4j's call reads too), the in-process SipHash and its 16 hexadecimal digits, "
            + "the new key string's hash in the store's map, the count and the verdict, the metrics' "
            + "counter; a cheaper clock (a tick) would take the largest part, at the price of a thread "
            + "per application and windows that end up to a tick late."));
    private static final List<Pair> ALTERNATED = List.of(BUCKET4J, TOKEN_DECISION, SLIDING_DECISION,
            CALENDAR_DECISION);

    private static final List<Pair> PAIRS = List.of(
            new Pair("store consume, existing key / ConcurrentHashMap.get + AtomicLong.incrementAndGet",
                    "storeConsumeExistingKey", "floorMapAtomicLong", Goal.atMost(11, 2.5, "in-memory consume / map floor",
                    "the gap is mostly the clock: per call `MemoryRateLimiter.consume` reads it once "
                    + "(the runtime's `ElapsedTimeClock`, `System.nanoTime()`: a clock_gettime, which no cheaper read "
                    + "of the JDK avoids: `currentTimeMillis` and `InstantSource.system().millis()` cost the same), "
                    + "which alone costs more "
                    + "than 2.5 floors (the clock read row), where the floor reads no clock. The rest is more than "
                    + "the floor does too: the key's cell, the window's end, the compare-and-set and the `Verdict`, "
                    + "the only allocation. A clock read cheaper than clock_gettime (a millisecond tick written by "
                    + "a thread of the process: a thread per application, windows that end up to a tick late) "
                    + "would halve the gap but not close it: a design decision, not a tuning. Measured on this "
                    + "machine under the other agents' load: a volatile tick read under 1 ns against 26-28 ns, "
                    + "but the tick (parkNanos of 1 ms) lagged the clock by 1 ms at the median, 7 ms at p99 and "
                    + "48 ms at most, for 1.5 % of a core: windows that end up to tens of milliseconds late, "
                    + "against the store's promise of no later than their length; not taken.")),
            new Pair("store's clock read (ElapsedTimeClock, the runtime's default) / ConcurrentHashMap.get + "
                    + "AtomicLong.incrementAndGet", "storeClockRead", "floorMapAtomicLong", Goal.none()),
            new Pair("store consume, new key / ConcurrentHashMap.get + AtomicLong.incrementAndGet",
                    "storeConsumeNewKey", "floorMapAtomicLong", Goal.none()),
            new Pair("whole decision (normalize, in-process SipHash, outage policy, count, metrics) / Bucket4j local "
                    + "tryConsume(1)", "decision", "bucket4jLocal", Goal.atMost(11, 3, "whole in-memory decision / "
                    + "Bucket4j", "around the store's consume (the row above) the decision adds a one-scan "
                    + "normalization of an ASCII login, SipHash-2-4 and its 16 hexadecimal digits (a new string, "
                    + "whose hash the store's map computes), the outage policy and a counter increment; the store's "
                    + "clock read is the largest part of the consume row.")),
            new Pair("token bucket / fixed window, store consume, existing key", "tokenBucketStoreConsumeExistingKey",
                    "storeConsumeExistingKey", Goal.atMost(31, 1.2, 1.25, "in-memory token bucket / fixed window",
                    "a one-window token bucket is one number per key moved on by compare-and-set, as a fixed "
                    + "window's count is, with its interval and capacity kept per key so a decision divides nothing; "
                    + "its verdict's resetAfter is a new Duration per call (the time until full moves on with each "
                    + "allowed call), where a fixed window's is kept per millisecond. Must hold 1.25 (0.8 × the "
                    + "fixed window's rate).")),
            new Pair(TOKEN_DECISION.label(), TOKEN_DECISION.figure(), TOKEN_DECISION.anchor(),
                    TOKEN_DECISION.goal()),
            new Pair("sliding window / fixed window, store consume, existing key",
                    "slidingWindowStoreConsumeExistingKey", "storeConsumeExistingKey", Goal.atMost(32, 1.11, 1.25,
                    "in-memory sliding window / fixed window", "a sliding window keeps three numbers per window and "
                    + "key (current count, previous count, end) under the key's lock, where a one-window fixed "
                    + "window changes one count by compare-and-set; its verdict's resetAfter is a new Duration per "
                    + "call. 1.11 is 0.9 × the fixed window's rate; must hold 1.25 (0.8 ×).")),
            new Pair(SLIDING_DECISION.label(), SLIDING_DECISION.figure(), SLIDING_DECISION.anchor(),
                    SLIDING_DECISION.goal()),
            new Pair("calendar month / fixed window, store consume, existing key", "calendarStoreConsumeExistingKey",
                    "storeConsumeExistingKey", Goal.atMost(55, 1.11, 1.11, "in-memory calendar month / fixed window",
                    "the same lock-free cell; the window's length is the month's time left, from the period kept "
                    + "(CalendarPeriods). Must hold 1.11 (0.9 × the fixed window's rate).")),
            new Pair(CALENDAR_DECISION.label(), CALENDAR_DECISION.figure(), CALENDAR_DECISION.anchor(),
                    CALENDAR_DECISION.goal()),
            new Pair("store take and give back of a concurrency permit (ns per pair), existing key / store consume, "
                    + "existing key", "storeTakeAndGiveBackExistingKey", "storeConsumeExistingKey", Goal.none()),
            new Pair("settled call (reserve 1, settle 3: the decision and a debit of 2) / fixed-cost decision",
                    "settledDecision", "decision", Goal.none()),
            new Pair("whole decision / Resilience4j acquirePermission", "decision", "resilience4j", Goal.none()),
            new Pair("whole decision / Guava RateLimiter.tryAcquire", "decision", "guava", Goal.none()),
            new Pair("whole decision / store consume, existing key", "decision", "storeConsumeExistingKey",
                    Goal.none()));

    /** Alternating single-fork runs behind each median row ({@link #ALTERNATED}), full mode; 1 in smoke mode. */
    static final int ALTERNATIONS = 7;

    private InMemorySection() {
    }

    static Section run(Mode mode) throws Exception {
        return run(mode, "");
    }

    /**
     * @param only a text the rows kept name ({@code -Dbench.rows}): only they are measured, each row's two
     *             benchmarks; empty for every row
     */
    static Section run(Mode mode, String only) throws Exception {
        List<Pair> pairs = PAIRS.stream().filter(pair -> pair.label().contains(only)).toList();
        List<Pair> alternations = ALTERNATED.stream().filter(pair -> pair.label().contains(only)).toList();
        if (pairs.isEmpty() && alternations.isEmpty()) {
            throw new IllegalArgumentException("no in-memory row names '" + only + "'");
        }
        Set<String> benchmarks = new HashSet<>();
        if (!only.isEmpty()) {
            pairs.forEach(pair -> benchmarks.addAll(List.of(pair.figure(), pair.anchor())));
        }
        List<Row> rows = new ArrayList<>();
        for (int threads : pairs.isEmpty() ? List.<Integer>of() : List.of(1, 2)) {
            Map<String, Figure> figures = measure(mode, threads, benchmarks, mode.jmhForks());
            for (Pair pair : pairs) {
                // At 1 thread an alternated ratio's goal is on its median row below, not on this single run.
                boolean alternated = ALTERNATED.stream().anyMatch(a -> a.figure().equals(pair.figure())
                        && a.anchor().equals(pair.anchor()));
                Optional<Goal> goal = threads == 1 && alternated ? Goal.none() : pair.goal();
                rows.add(Row.of(threads + (threads == 1 ? " thread: " : " threads: ") + pair.label(),
                        figures.get(pair.figure()), figures.get(pair.anchor()), goal));
            }
        }
        for (Pair alternation : alternations) {
            rows.add(alternated(mode, alternation));
        }
        return new Section("In memory: nanoseconds per decision (JMH)", "JMH "
                + Environment.version("org.openjdk.jmh", "jmh-core") + ", " + mode.jmhForks() + " fork(s), "
                + mode.jmhWarmups() + " warm-up and " + mode.jmhIterations() + " measured iterations of "
                + mode.jmhIteration().toMillis() + " ms, average time, `-prof gc` "
                + "(B/op = gc.alloc.rate.norm). Every thread works on one key (an existing key's row in memory, "
                + "Bucket4j's and Guava's one bucket, Resilience4j's one limiter); the new-key row gives each "
                + "thread 65 536 hashed keys never seen before and a fresh store when they run out; the permit "
                + "row takes each thread's own permit of a concurrency bucket (10 000 permits, 1 h leases) on the "
                + "key, which holds one more permit throughout, and gives it back: nanoseconds per pair. Lower is "
                + "better: a ratio of 2 means twice the anchor's time.", rows);
    }

    /**
     * The alternation's two benchmarks, 1 thread, in alternating single-fork runs (the first one swapped each
     * time): the row of median ratio, with the ratios' spread.
     */
    private static Row alternated(Mode mode, Pair alternation) throws Exception {
        int runs = mode.smoke() ? 1 : ALTERNATIONS;
        List<Figure[]> pairs = new ArrayList<>();
        for (int run = 0; run < runs; run++) {
            Figure figure;
            Figure anchor;
            if (run % 2 == 0) {
                figure = measure(mode, 1, alternation.figure()).get(alternation.figure());
                anchor = measure(mode, 1, alternation.anchor()).get(alternation.anchor());
            } else {
                anchor = measure(mode, 1, alternation.anchor()).get(alternation.anchor());
                figure = measure(mode, 1, alternation.figure()).get(alternation.figure());
            }
            pairs.add(new Figure[] {figure, anchor});
        }
        return Row.medianByRatio("1 thread, " + runs + " alternating runs, the median by ratio: "
                + alternation.label(), pairs, "runs", alternation.goal());
    }

    /** One benchmark alone in a single-fork run, as the alternated runs are in either mode. */
    private static Map<String, Figure> measure(Mode mode, int threads, String only) throws Exception {
        return measure(mode, threads, Set.of(only), 1);
    }

    /**
     * @param only  benchmark methods' names, or none for all
     * @param forks JMH forks; 0 runs in this JVM (the smoke's passes over every benchmark)
     */
    private static Map<String, Figure> measure(Mode mode, int threads, Set<String> only, int forks)
            throws Exception {
        Options options = new OptionsBuilder()
                .include(InMemoryBenchmarks.class.getName() + "\\."
                        + (only.isEmpty() ? "" : "(" + String.join("|", only) + ")$"))
                .forks(forks)
                .warmupIterations(mode.jmhWarmups())
                .warmupTime(TimeValue.milliseconds(mode.jmhIteration().toMillis()))
                .measurementIterations(mode.jmhIterations())
                .measurementTime(TimeValue.milliseconds(mode.jmhIteration().toMillis()))
                .threads(threads)
                .addProfiler(GCProfiler.class)
                .jvmArgsAppend("-Xms1g", "-Xmx1g")
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        Map<String, Figure> figures = new HashMap<>();
        for (RunResult result : results) {
            String method = result.getParams().getBenchmark();
            method = method.substring(method.lastIndexOf('.') + 1);
            Result<?> primary = result.getPrimaryResult();
            Map<String, Double> details = new HashMap<>();
            allocation(result).ifPresent(bytes -> details.put("B/op", bytes));
            figures.put(method, new Figure(method, primary.getScore(), "ns/op", details));
        }
        return figures;
    }

    private static Optional<Double> allocation(RunResult result) {
        for (Map.Entry<String, Result> secondary : result.getSecondaryResults().entrySet()) {
            if (secondary.getKey().endsWith("gc.alloc.rate.norm")) {
                return Optional.of(secondary.getValue().getScore());
            }
        }
        return Optional.empty();
    }
}
