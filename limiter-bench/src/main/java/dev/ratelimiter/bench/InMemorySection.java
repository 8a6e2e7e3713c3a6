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
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Section 1: {@link InMemoryBenchmarks} under JMH with {@code -prof gc}, at 1 and 2 threads.
 */
final class InMemorySection {

    /** What each row compares: figure, anchor (benchmark method names) and the goal of issue 11 if any. */
    private record Pair(String label, String figure, String anchor, Optional<Goal> goal) {
    }

    private static final List<Pair> PAIRS = List.of(
            new Pair("store consume, existing key / ConcurrentHashMap.get + AtomicLong.incrementAndGet",
                    "storeConsumeExistingKey", "floorMapAtomicLong", Goal.atMost(2.5, "in-memory consume / map floor",
                    "the gap is mostly the clock: per call `MemoryRateLimiter.consume` reads it once "
                    + "(`ForwardOnlyClock` over `InstantSource.system()`, a clock_gettime), which alone costs more "
                    + "than 2.5 floors (the clock read row), where the floor reads no clock. The rest is more than "
                    + "the floor does too: the key's cell, the window's end, the compare-and-set and the `Verdict`, "
                    + "the only allocation. A clock read cheaper than clock_gettime (a millisecond tick written by "
                    + "a thread of the process: a thread per application, windows that end up to a tick late) "
                    + "would halve the gap but not close it: a design decision, not a tuning.")),
            new Pair("store's clock read (ForwardOnlyClock over InstantSource.system()) / ConcurrentHashMap.get + "
                    + "AtomicLong.incrementAndGet", "storeClockRead", "floorMapAtomicLong", Goal.none()),
            new Pair("store consume, new key / ConcurrentHashMap.get + AtomicLong.incrementAndGet",
                    "storeConsumeNewKey", "floorMapAtomicLong", Goal.none()),
            new Pair("whole decision (normalize, in-process SipHash, outage policy, count, metrics) / Bucket4j local "
                    + "tryConsume(1)", "decision", "bucket4jLocal", Goal.atMost(3, "whole in-memory decision / "
                    + "Bucket4j", "around the store's consume (the row above) the decision adds a one-scan "
                    + "normalization of an ASCII login, SipHash-2-4 and its 16 hexadecimal digits (a new string, "
                    + "whose hash the store's map computes), the outage policy and a counter increment; the store's "
                    + "clock read is the largest part of the consume row.")),
            new Pair("whole decision / Resilience4j acquirePermission", "decision", "resilience4j", Goal.none()),
            new Pair("whole decision / Guava RateLimiter.tryAcquire", "decision", "guava", Goal.none()),
            new Pair("whole decision / store consume, existing key", "decision", "storeConsumeExistingKey",
                    Goal.none()));

    private InMemorySection() {
    }

    static Section run(Mode mode) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (int threads : List.of(1, 2)) {
            Map<String, Figure> figures = measure(mode, threads);
            for (Pair pair : PAIRS) {
                rows.add(Row.of(threads + (threads == 1 ? " thread: " : " threads: ") + pair.label(),
                        figures.get(pair.figure()), figures.get(pair.anchor()), pair.goal()));
            }
        }
        return new Section("In memory: nanoseconds per decision (JMH)", "JMH "
                + Environment.version("org.openjdk.jmh", "jmh-core") + ", " + mode.jmhForks() + " fork(s), "
                + mode.jmhWarmups() + " warm-up and " + mode.jmhIterations() + " measured iterations of "
                + mode.jmhIteration().toMillis() + " ms, average time, `-prof gc` "
                + "(B/op = gc.alloc.rate.norm). Every thread works on one key (an existing key's row in memory, "
                + "Bucket4j's and Guava's one bucket, Resilience4j's one limiter); the new-key row gives each "
                + "thread 65 536 hashed keys never seen before and a fresh store when they run out. Lower is "
                + "better: a ratio of 2 means twice the anchor's time.", rows);
    }

    private static Map<String, Figure> measure(Mode mode, int threads) throws Exception {
        Options options = new OptionsBuilder()
                .include(InMemoryBenchmarks.class.getName() + "\\.")
                .forks(mode.jmhForks())
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
