package dev.ratelimiter.bench;

import java.time.Duration;
import java.util.List;

/**
 * How long and how wide a run measures. {@link #FULL} is sized to finish in about 25 minutes on a 2-core machine;
 * {@link #SMOKE} runs every section's code path in seconds, inside {@code ./mvnw verify}, so the module cannot rot.
 *
 * @param name             {@code full} or {@code smoke}
 * @param jmhForks         JMH forks per benchmark
 * @param jmhWarmups       JMH warm-up iterations
 * @param jmhIterations    JMH measured iterations
 * @param jmhIteration     length of one JMH iteration
 * @param loadWarmup       closed-loop warm-up before each measured load
 * @param loadDuration     each measured closed-loop load
 * @param threads          client thread counts of the store section
 * @param keys             distinct keys of the store section's spread load
 * @param outagePhase      how long each outage phase is measured
 * @param httpForks        pairs of HTTP servers started in turn (limiter on, limiter off)
 * @param httpWarmup       length of one HTTP warm-up round
 * @param httpWarmupMinRounds HTTP warm-up rounds per server at least
 * @param httpWarmupMaxRounds HTTP warm-up rounds per server at most, while two consecutive ones disagree
 * @param httpRounds       measured HTTP rounds per server of a pair, alternated
 * @param httpRound        length of one measured HTTP round
 * @param memoryCounters   live in-memory counters of the memory section
 */
public record Mode(String name, int jmhForks, int jmhWarmups, int jmhIterations, Duration jmhIteration,
                   Duration loadWarmup, Duration loadDuration, List<Integer> threads, int keys,
                   Duration outagePhase, int httpForks, Duration httpWarmup, int httpWarmupMinRounds,
                   int httpWarmupMaxRounds, int httpRounds, Duration httpRound, int memoryCounters) {

    /*
     * Full: JMH 14 runs x (1 fork: 2 x 1 s warm-up + 3 x 1 s) ~ 1.5 min; stores 2 x 3 threads x 2 loads x 6
     * contenders x (1 s + 3 s) ~ 5 min; outage, both stores ~ 40 s; HTTP (3 pairs of Payara Micro, each ~40 s
     * to start, 15 to 30 warm-up rounds of 2 x 3 s, 5 x 2 x 4 s rounds) ~ 10 min; memory ~ 20 s; the build before
     * it ~ 1 min; the in-memory median, 7 x 2 single-fork JMH runs ~ 1.5 min. 15 measured HTTP rounds: an odd
     * count, so their median is a measured round.
     */
    static final Mode FULL = new Mode("full", 1, 2, 3, Duration.ofSeconds(1), Duration.ofSeconds(1),
            Duration.ofSeconds(3), List.of(1, 16, 64), 10_000, Duration.ofSeconds(3), 3, Duration.ofSeconds(3), 15, 30,
            5, Duration.ofSeconds(4), 1_000_000);

    /*
     * Smoke: every section's code path in about 15 s on an idle 2-core machine (CONTRIBUTING.md#benchmarks). JMH in
     * this JVM (forks 0) for the two passes of every benchmark, but the alternated pair forks as the full run does,
     * so JMH's forked path is checked too; one thread count; store loads of 20 + 50 ms; HTTP rounds of 200 ms.
     */
    static final Mode SMOKE = new Mode("smoke", 0, 0, 1, Duration.ofMillis(10), Duration.ofMillis(20),
            Duration.ofMillis(50), List.of(4), 100, Duration.ofMillis(100), 1, Duration.ofMillis(200), 1, 2, 1,
            Duration.ofMillis(200), 10_000);

    boolean smoke() {
        return this == SMOKE;
    }

    static Mode named(String name) {
        return switch (name) {
            case "full" -> FULL;
            case "smoke" -> SMOKE;
            default -> throw new IllegalArgumentException("mode must be full or smoke, was " + name);
        };
    }
}
