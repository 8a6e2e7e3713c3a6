package dev.ratelimiter.bench;

import dev.ratelimiter.internal.core.settings.BreakerSettings;

import java.time.Duration;
import java.util.List;

/**
 * How long and how wide a run measures. {@link #FULL} is sized to finish in about 30 minutes on a 2-core machine;
 * {@link #SMOKE} runs every section's code path in seconds, inside {@code ./mvnw verify}, so the module cannot rot.
 *
 * @param name             {@code full} or {@code smoke}
 * @param jmhForks         JMH forks per benchmark
 * @param jmhWarmups       JMH warm-up iterations
 * @param jmhIterations    JMH measured iterations
 * @param jmhIteration     length of one JMH iteration
 * @param loadWarmup       closed-loop warm-up before a load's first round
 * @param loadDuration     one measured round of a closed-loop load
 * @param loadRounds       rounds of each store load, the contenders in turn (reversed every other round): each
 *                         comparison's row is its round of median ratio
 * @param loadRewarmup     closed-loop warm-up before each round after a load's first
 * @param threads          client thread counts of the store section
 * @param keys             distinct keys of the store section's spread load
 * @param outagePhase      how long each outage phase is measured
 * @param outageBreaker    the outage section's circuit breaker: the library's defaults in the full run
 * @param httpForks        pairs of HTTP servers started in turn (limiter on, limiter off)
 * @param httpWarmup       length of one HTTP warm-up round
 * @param httpWarmupMinRounds HTTP warm-up rounds per server at least
 * @param httpWarmupMaxRounds HTTP warm-up rounds per server at most, while two consecutive ones disagree
 * @param httpRounds       measured HTTP rounds per server of a pair, alternated
 * @param httpRound        length of one measured HTTP round
 * @param memoryCounters   live in-memory counters of the memory section
 */
public record Mode(String name, int jmhForks, int jmhWarmups, int jmhIterations, Duration jmhIteration,
                   Duration loadWarmup, Duration loadDuration, int loadRounds, Duration loadRewarmup,
                   List<Integer> threads, int keys,
                   Duration outagePhase, BreakerSettings outageBreaker, int httpForks, Duration httpWarmup,
                   int httpWarmupMinRounds, int httpWarmupMaxRounds, int httpRounds, Duration httpRound,
                   int memoryCounters) {

    /*
     * Full: JMH 16 runs x (1 fork: 2 x 1 s warm-up + 3 x 1 s) ~ 1.7 min; stores 2 x 3 threads x 2 loads x 13 or 14
     * contenders x (1 s + 1 s, then 2 x (0.3 s + 1 s); pgbench's runs 5 s each, its first 2 left out) ~ 13.5 min;
     * outage, both stores ~ 40 s; quota leases on a hot key, 2 stores x 2 replica counts x (3 x 2 runs of 1 s + 3 s
     * on fresh replicas, then 3 x 2 exhaustions of about a second) ~ 2 min; waiting for reservations, 3 stores x
     * (2 s warm-up + 10 s) ~ 40 s (WaitsSection); HTTP (3 pairs of Payara Micro, each ~40 s to start, 15 to 30
     * warm-up rounds of 2 x 3 s, 5 x 2 x 4 s rounds) ~ 10 min; memory ~ 20 s; the build before it ~ 1 min; the
     * in-memory median, 7 x 2 single-fork JMH runs ~ 1.5 min. 15 measured HTTP rounds and 3 store rounds: odd
     * counts, so their median is a measured round. Store rounds rather than one 3 s measurement: on this 2-core
     * shared machine one contender's rate moves by half between two minutes (the PostgreSQL fixed window from
     * 15 300 to 31 800/s on the same code), which one measurement each made into ratios that flipped from run to
     * run.
     */
    static final Mode FULL = new Mode("full", 1, 2, 3, Duration.ofSeconds(1), Duration.ofSeconds(1),
            Duration.ofSeconds(1), 3, Duration.ofMillis(300), List.of(1, 16, 64), 10_000, Duration.ofSeconds(3),
            BreakerSettings.DEFAULTS, 3, Duration.ofSeconds(3), 15, 30, 5, Duration.ofSeconds(4), 1_000_000);

    /*
     * Smoke: every section's code path in about 18 s on a 2-core machine (CONTRIBUTING.md#benchmarks), and about
     * 8 s more for waiting for reservations (WaitsSection: 3 stores x (0.5 s warm-up + 2 s)). JMH in this JVM
     * (forks 0) for the two passes of every benchmark, but the alternated pair forks as the full run does, so JMH's
     * forked path is checked too; one thread count; store loads of 10 + 25 ms, then two rounds of 25 ms; HTTP rounds
     * of 100 ms. The full run's 10 000 spread keys, so pgbench's concurrent transactions of 16 upserts rarely share a
     * row (on 100 keys they shared rows in opposite orders, and each deadlock waited out PostgreSQL's 1 s
     * deadlock_timeout). The outage's breaker backs off 50 to 100 ms where the library's 1 to 30 s would make the
     * three probes that close it after SIGCONT last 3 s for each store; thresholds as the library's.
     */
    static final Mode SMOKE = new Mode("smoke", 0, 0, 1, Duration.ofMillis(10), Duration.ofMillis(10),
            Duration.ofMillis(25), 3, Duration.ZERO, List.of(4), 10_000, Duration.ofMillis(100), new BreakerSettings(
                    BreakerSettings.DEFAULTS.failureThreshold(), Duration.ofMillis(50), Duration.ofMillis(100),
                    BreakerSettings.DEFAULTS.successThreshold()), 1, Duration.ofMillis(100), 1, 2, 1,
            Duration.ofMillis(100), 10_000);

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
