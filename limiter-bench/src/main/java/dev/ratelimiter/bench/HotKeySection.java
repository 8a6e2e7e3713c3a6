package dev.ratelimiter.bench;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

/**
 * Quota leases on one hot key (issue 60, item 4): {@link #REPLICAS} replicas of the application, each a decision path
 * of its own ({@link HotKeyReplicas}), share one store; {@link #THREADS_PER_REPLICA} callers per replica call one key.
 * Measured per store and replica count: decisions per second with quota leases beside the exact mode (every decision
 * a round trip) on a bucket whose limit is never reached, the store calls per allowed decision with leases, and what
 * the replicas admit when they exhaust a key together ({@link HotKeyAdmission}), for a fixed window and a token
 * bucket.
 */
final class HotKeySection {

    static final String TITLE = "Quota leases on one hot key";
    static final List<Integer> REPLICAS = List.of(4, 16);
    static final int THREADS_PER_REPLICA = 2;
    /** The lease: 5 % of the limit at most, given back after 1 s unused (also the sizing horizon). */
    static final QuotaLeaseSettings LEASE = new QuotaLeaseSettings(5, Duration.ofSeconds(1));
    /** So high that every decision of a throughput run is allowed: the runs measure the allowed path. */
    private static final long NEVER_REACHED = 1_000_000_000L;
    private static final Duration WINDOW = Duration.ofMinutes(1);
    /** Half the window: an exhaustion run that lasted longer could reach the next window. */
    private static final Duration DEADLINE = WINDOW.dividedBy(2);

    private final int rounds;
    private final long limit;
    private final Duration warmup;
    private final Duration duration;
    private final Bucket allowed;
    private final Bucket fixedWindow;
    private final Bucket tokenBucket;
    private final List<Row> rows = new ArrayList<>();

    /**
     * Full: 3 alternated rounds of 1 s warm-up and 3 s measured, and a limit of 20 000 that 2-core machines exhaust in
     * about a second (16 replicas' leases hold at most 16 000 of it at once). Smoke: one round, the smoke's load
     * durations, a limit of 2 000.
     */
    HotKeySection(Mode mode) {
        this.rounds = mode.smoke() ? 1 : 3;
        this.limit = mode.smoke() ? 2_000 : 20_000;
        this.warmup = mode.loadWarmup();
        this.duration = mode.smoke() ? mode.loadDuration() : Duration.ofSeconds(3);
        // fail-closed: a call the store did not decide in time is refused, never decided by a fallback that would
        // admit past the store's count and blur what the leases admit
        this.allowed = Bucket.of("bench-hot-allowed", List.of(new Limit(NEVER_REACHED, Duration.ofHours(1))),
                OutagePolicy.FAIL_CLOSED);
        this.fixedWindow = Bucket.of("bench-hot-fixed", List.of(new Limit(limit, WINDOW)), OutagePolicy.FAIL_CLOSED);
        // refills the limit per hour: a few tokens during a run of seconds, beside a burst of the limit
        this.tokenBucket = Bucket.of("bench-hot-token", List.of(new Limit(limit, Duration.ofHours(1))),
                OutagePolicy.FAIL_CLOSED, Algorithm.TOKEN_BUCKET, limit);
    }

    /** The buckets the replicas are registered with, for their metrics. */
    List<Bucket> buckets() {
        return List.of(allowed, fixedWindow, tokenBucket);
    }

    /** Every bucket's lease, for a replica in lease mode. */
    Map<String, QuotaLeaseSettings> leases() {
        Map<String, QuotaLeaseSettings> leases = new LinkedHashMap<>();
        for (Bucket bucket : buckets()) {
            leases.put(bucket.name(), LEASE);
        }
        return leases;
    }

    /** Measures the store named {@code store}, its replicas made by {@code factory}. */
    void measure(String store, HotKeyReplicas.Factory factory) throws Exception {
        long began = System.nanoTime();
        for (int replicas : REPLICAS) {
            throughput(store, replicas, factory);
            admission(store, replicas, factory);
        }
        System.out.printf("bench: hotkey, %s done in %.1f s%n", store, (System.nanoTime() - began) / 1e9);
    }

    /** A closed-loop run of one mode on fresh replicas: its rate, and their store calls and allowed decisions. */
    private record Run(Figure figure, long storeCalls, long roundTrips, long allowed) {
    }

    private void throughput(String store, int replicas, HotKeyReplicas.Factory factory) throws Exception {
        List<Figure[]> pairs = new ArrayList<>();
        long leaseCalls = 0;
        long leaseRoundTrips = 0;
        long leaseAllowed = 0;
        long exactCalls = 0;
        long exactAllowed = 0;
        for (int round = 0; round < rounds; round++) {
            // Alternated, as the store section's rounds are: neither mode always runs on the warmer machine.
            boolean leaseFirst = round % 2 == 1;
            Run first = run(store, replicas, factory, leaseFirst);
            Run second = run(store, replicas, factory, !leaseFirst);
            Run lease = leaseFirst ? first : second;
            Run exact = leaseFirst ? second : first;
            pairs.add(new Figure[] {lease.figure(), exact.figure()});
            leaseCalls += lease.storeCalls();
            leaseRoundTrips += lease.roundTrips();
            leaseAllowed += lease.allowed();
            exactCalls += exact.storeCalls();
            exactAllowed += exact.allowed();
        }
        String what = store + ", " + replicas + " replicas × " + THREADS_PER_REPLICA + " threads, one hot key";
        rows.add(Row.medianByRatio(what + ": decisions/s, quota leases / exact", pairs, "rounds", Goal.none()));
        Map<String, Double> details = new LinkedHashMap<>();
        details.put("consume_round_trips", (double) leaseRoundTrips);
        details.put("exact_calls_per_decision", exactAllowed == 0 ? Double.NaN : (double) exactCalls / exactAllowed);
        rows.add(Row.of(what + ": store calls per allowed decision, quota leases",
                new Figure("quota leases, store calls", leaseCalls, "calls", details),
                new Figure("quota leases, allowed decisions", leaseAllowed, "decisions"),
                Goal.atMost(60, 0.05, "store round trips per allowed decision with quota leases",
                        "a lease is sized from the replica's rate under its last one over quota-lease-idle, and a "
                        + "key's first lease is its call alone: a run of few decisions per replica counts mostly "
                        + "that ramp; otherwise leases were given back and taken again (QuotaLeaseLimiter).")));
    }

    private Run run(String store, int replicas, HotKeyReplicas.Factory factory, boolean leasing) throws Exception {
        String name = leasing ? "quota leases" : "exact";
        String key = "hot-" + UUID.randomUUID();
        LongAdder allowedCalls = new LongAdder();
        HotKeyReplicas paths = HotKeyReplicas.start(replicas, factory, leasing ? leases() : Map.of());
        Figure figure;
        try {
            Load load = new Load(replicas * THREADS_PER_REPLICA, 1, warmup, duration);
            figure = ClosedLoop.run(name, load, caller -> {
                LibraryPaths.Decision replica = paths.forCaller(caller);
                return ignored -> {
                    // Every decision here should be allowed: a refusal is no decision of the path measured.
                    boolean allowedHere = replica.decide(allowed, key, KeyNormalization.NONE).isAllowed();
                    if (allowedHere) {
                        allowedCalls.increment();
                    }
                    return allowedHere;
                };
            });
        } finally {
            paths.close(); // gives the leases' unused parts back: counted below with the run's other store calls
        }
        System.out.printf("bench: %s hot key, %d replicas, %s: %.0f decisions/s, %d store calls for %d allowed%n",
                store, replicas, name, figure.value(), paths.storeCalls(), allowedCalls.sum());
        return new Run(figure, paths.storeCalls(), paths.roundTrips(), allowedCalls.sum());
    }

    private void admission(String store, int replicas, HotKeyReplicas.Factory factory) throws Exception {
        try (HotKeyReplicas paths = HotKeyReplicas.start(replicas, factory, leases())) {
            paths.warm(allowed);
            for (Bucket bucket : List.of(fixedWindow, tokenBucket)) {
                List<HotKeyAdmission> runs = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    HotKeyAdmission run = HotKeyAdmission.run(paths, THREADS_PER_REPLICA, bucket, DEADLINE);
                    System.out.printf("bench: %s hot key, %d replicas, %s: %d admitted of %.0f (refused %d, "
                                    + "unavailable %d, %d ms%s)%n", store, replicas, name(bucket), run.admitted(),
                            allowance(bucket, run), run.refused(), run.unavailable(), run.nanos() / 1_000_000,
                            run.deadline() ? ", ended by the deadline" : "");
                    runs.add(run);
                }
                admissionRows(store + ", " + replicas + " replicas × " + THREADS_PER_REPLICA + " threads, "
                        + name(bucket), bucket, runs);
            }
        }
    }

    /**
     * Two rows of the same runs: the fewest admitted against the goal, the most against the bound that must hold,
     * since a goal has one side and the issue sets both.
     */
    private void admissionRows(String what, Bucket bucket, List<HotKeyAdmission> runs) {
        Comparator<HotKeyAdmission> byShare = Comparator.comparingDouble(run -> run.admitted() / allowance(bucket,
                run));
        HotKeyAdmission fewest = runs.stream().min(byShare).orElseThrow();
        HotKeyAdmission most = runs.stream().max(byShare).orElseThrow();
        String of = bucket.isTokenBucket() ? "(burst + refill during the run)" : "limit";
        String in = runs.size() == 1 ? "" : " of " + runs.size() + " runs";
        rows.add(Row.of(what + ": fewest admitted" + in + " / " + of, admitted(fewest),
                new Figure(of, allowance(bucket, fewest), "calls"),
                Goal.atLeast(60, 0.95, "share of the limit admitted with quota leases",
                        "quota sat in other replicas' leases, unused, when the key ran out (at most "
                        + "quota-lease-percent of the limit per replica, until given back after quota-lease-idle), "
                        + "or calls were not decided in time (unavailable); "
                        + "docs/guide.md#quota-leases-for-hot-keys.")));
        rows.add(Row.of(what + ": most admitted" + in + " / " + of, admitted(most),
                new Figure(of, allowance(bucket, most), "calls"),
                Goal.atMost(60, 1.0, 1.0, "admitted / limit with quota leases, never above",
                        "the store counts a lease whole when it is taken, so replicas' leases never pass the limit "
                        + "within a window: a miss is a bug of QuotaLeaseLimiter or of a store's consume of many "
                        + "attempts, unless the run outlasted the window (run_ms).")));
    }

    private static Figure admitted(HotKeyAdmission run) {
        Map<String, Double> details = new LinkedHashMap<>();
        details.put("refused", (double) run.refused());
        details.put("unavailable", (double) run.unavailable());
        details.put("run_ms", run.nanos() / 1e6);
        details.put("ended_by_deadline", run.deadline() ? 1.0 : 0.0);
        return new Figure("admitted", run.admitted(), "calls", details);
    }

    /**
     * What the bucket could admit during the run: a fixed window's limit; a token bucket's burst and what it refilled
     * from the callers' release to their end, which bounds the refill between its first and last admitted call.
     */
    private static double allowance(Bucket bucket, HotKeyAdmission run) {
        Limit first = bucket.limits().get(0);
        if (!bucket.isTokenBucket()) {
            return first.limit();
        }
        double perNano = (double) first.limit() / first.window().toNanos();
        return bucket.burst() + perNano * run.nanos();
    }

    private String name(Bucket bucket) {
        String limits = Report.number(limit);
        return bucket.isTokenBucket() ? "token bucket (burst " + limits + ", refill " + limits + " per hour)"
                : "fixed window of " + limits + " per " + WINDOW.toSeconds() + " s";
    }

    Section section() {
        return new Section(TITLE, "Replicas of the application (4 and 16), each a decision path of its own, as "
                + "separate servers have: its own Valkey client pool or PostgreSQL pool (the library's defaults, "
                + "of which " + THREADS_PER_REPLICA + " callers use about " + THREADS_PER_REPLICA
                + " connections: 16 replicas' pools stay well within the cluster's `max_connections`), batching, "
                + "breaker, refusals kept in memory, and its own quota leases (" + LEASE.percent() + " % of the "
                + "limit at most, given back after " + LEASE.idle().toSeconds() + " s unused, swept as the runtime "
                + "sweeps them), share one store; " + THREADS_PER_REPLICA + " closed-loop callers per replica call "
                + "one hot key. Buckets `fail-closed`, so no fallback admits what the store did not count. "
                + "Throughput: the same replicas and callers with quota leases and exact (every decision a round "
                + "trip), on a fixed window of " + Report.number(NEVER_REACHED) + " per hour that every decision "
                + "passes, " + rounds + " round(s) of " + warmup.toMillis() + " ms warm-up and "
                + duration.toMillis() + " ms measured, alternating which mode goes first, fresh replicas and a new "
                + "key each (rows: the round of median ratio). Store calls per allowed decision: every call that "
                + "reached the replicas' stores (each lease taken and given back, the give-backs at the replicas' "
                + "close among them; batching could only merge them into fewer round trips) over every decision "
                + "they allowed, warm-up included, over all rounds. Admitted: the replicas' callers, released at "
                + "once on a new key, call until each was refused " + HotKeyAdmission.REFUSALS + " times in a row ("
                + "every replica saw the key exhausted) or " + DEADLINE.toSeconds() + " s passed; " + rounds
                + " run(s) per bucket, the fewest admitted against the goal, the most against the limit, which it "
                + "must never pass. For the token bucket the allowance is its burst plus its refill from the "
                + "callers' release to their end.", rows);
    }
}
