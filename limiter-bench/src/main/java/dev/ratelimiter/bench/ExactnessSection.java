package dev.ratelimiter.bench;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * What a burst admits on one key when it is far above the limit (issue 54, item 4): replicas of the application
 * (each a decision path of its own, with its own pool, batching and fallback, as two servers have) share one store;
 * {@link #CALLERS} callers, split evenly between them, all released at once, each make one decision on the same new
 * key of a bucket of {@link #LIMIT} per minute, with the library's default deadline (100 ms), so that some decisions
 * meet their deadline under the burst, as they do on a loaded server. A figure is the most admitted over
 * {@code rounds} bursts (a fresh key each) ÷ the limit: must be at most 1.0 for the fixed window while the store is up.
 * Its details count what the bucket's outage policy answered (the fallback) and the calls the store left undecided.
 */
final class ExactnessSection {

    static final String TITLE = "Admitted under a burst on one key";
    static final int CALLERS = 400;
    static final int LIMIT = 50;
    static final Duration DEADLINE = Duration.ofMillis(100);

    private final int rounds;
    private final List<Row> rows = new ArrayList<>();

    ExactnessSection(Mode mode) {
        this.rounds = mode.smoke() ? 1 : 5;
    }

    /**
     * Measures each algorithm on {@code replicas} decision paths made by {@code paths}, one per replica, all on the
     * store named {@code store}.
     *
     * @param replicas how many paths share the store (1 for memory, which no two processes share)
     */
    void measure(String store, int replicas, Supplier<LibraryPaths.Decision> paths) throws Exception {
        List<LibraryPaths.Decision> decisions = new ArrayList<>();
        try {
            for (int i = 0; i < replicas; i++) {
                LibraryPaths.Decision decision = paths.get();
                decisions.add(decision);
                warm(decision);
            }
            for (Algorithm algorithm : List.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW,
                    Algorithm.TOKEN_BUCKET)) {
                measure(store, decisions, algorithm);
            }
        } finally {
            for (LibraryPaths.Decision decision : decisions) {
                decision.close();
            }
        }
    }

    /**
     * Opens the path's connections and loads its script or statements, as a server that has served does, so that a
     * burst measures a running application rather than its first second: a few waves of concurrent decisions on
     * keys of their own, until a wave meets no deadline.
     */
    private static void warm(LibraryPaths.Decision decision) throws InterruptedException {
        for (int wave = 0; wave < 20; wave++) {
            long before = fallbacks(List.of(decision));
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                String key = "warm-" + UUID.randomUUID();
                Thread thread = new Thread(() -> {
                    for (Bucket bucket : buckets()) {
                        decision.decide(bucket, key, KeyNormalization.NONE);
                    }
                });
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
            if (fallbacks(List.of(decision)) == before && wave >= 2) {
                return;
            }
        }
    }

    /** The buckets the paths are registered with, for their metrics. */
    static List<Bucket> buckets() {
        return List.of(bucket(Algorithm.FIXED_WINDOW), bucket(Algorithm.SLIDING_WINDOW),
                bucket(Algorithm.TOKEN_BUCKET));
    }

    private static Bucket bucket(Algorithm algorithm) {
        // A token bucket of burst LIMIT refills one token per 1.2 s: a burst under a second admits LIMIT.
        return Bucket.of("bench-burst-" + algorithm.configName(), List.of(new Limit(LIMIT, Duration.ofMinutes(1))),
                OutagePolicy.FALLBACK, algorithm, algorithm == Algorithm.TOKEN_BUCKET ? LIMIT : 0);
    }

    private void measure(String store, List<LibraryPaths.Decision> replicas, Algorithm algorithm)
            throws InterruptedException {
        Bucket bucket = bucket(algorithm);
        int most = 0;
        long fallbacks = 0;
        long undecided = 0;
        long seconds = 0;
        for (int round = 0; round < rounds; round++) {
            String key = "burst-" + UUID.randomUUID();
            long fallbacksBefore = fallbacks(replicas, bucket);
            AtomicInteger admitted = new AtomicInteger();
            AtomicInteger unavailable = new AtomicInteger();
            CountDownLatch ready = new CountDownLatch(CALLERS);
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>(CALLERS);
            for (int i = 0; i < CALLERS; i++) {
                LibraryPaths.Decision replica = replicas.get(i % replicas.size());
                Thread thread = new Thread(() -> {
                    ready.countDown();
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    Verdict verdict = replica.decide(bucket, key, KeyNormalization.NONE);
                    if (verdict.isAllowed()) {
                        admitted.incrementAndGet();
                    } else if (verdict.outcome() == Verdict.Outcome.UNAVAILABLE) {
                        unavailable.incrementAndGet();
                    }
                }, "burst-" + i);
                threads.add(thread);
                thread.start();
            }
            ready.await();
            long began = System.nanoTime();
            go.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            seconds += System.nanoTime() - began;
            most = Math.max(most, admitted.get());
            fallbacks += fallbacks(replicas, bucket) - fallbacksBefore;
            undecided += unavailable.get();
        }
        System.out.printf("bench: %s burst, %s: at most %d admitted of %d (fallback %d, undecided %d)%n", store,
                algorithm.configName(), most, LIMIT, fallbacks, undecided);
        Map<String, Double> details = new LinkedHashMap<>();
        details.put("admitted", (double) most);
        details.put("decided_by_fallback", (double) fallbacks);
        details.put("unavailable", (double) undecided);
        details.put("burst_ms", seconds / 1e6 / rounds);
        rows.add(Row.of(store + ", " + (replicas.size() == 1 ? "one process" : replicas.size() + " replicas") + ", "
                        + name(algorithm) + ": most admitted / limit",
                new Figure("admitted", most, "calls", details), new Figure("limit", LIMIT, "calls"),
                algorithm == Algorithm.FIXED_WINDOW ? Goal.atMost(54, 1.0, 1.0, "admitted / limit under a burst, fixed window",
                        "a decision the store did not answer in time was decided by the bucket's fallback "
                        + "(decided_by_fallback), which knows only what this replica last heard from the store; "
                        + "docs/operations.md#what-the-fallback-knows.") : Goal.none()));
    }

    private static long fallbacks(List<LibraryPaths.Decision> replicas) {
        long total = 0;
        for (Bucket bucket : buckets()) {
            total += fallbacks(replicas, bucket);
        }
        return total;
    }

    private static long fallbacks(List<LibraryPaths.Decision> replicas, Bucket bucket) {
        long total = 0;
        for (LibraryPaths.Decision replica : replicas) {
            total += replica.fallbacks(bucket);
        }
        return total;
    }

    private static String name(Algorithm algorithm) {
        return switch (algorithm) {
            case FIXED_WINDOW -> "fixed window";
            case SLIDING_WINDOW -> "sliding window";
            case TOKEN_BUCKET -> "token bucket (burst " + LIMIT + ")";
            case CONCURRENCY -> "concurrency"; // not among the section's buckets, which count calls
        };
    }

    Section section() {
        return new Section(TITLE, CALLERS + " callers released at once, each one decision on the same new key of a "
                + "bucket of " + LIMIT + " per minute (outage policy `fallback`), split evenly between replicas: "
                + "decision paths of their own (pool, batching, breaker, fallback) sharing the store, with the "
                + "library's default deadline (" + DEADLINE.toMillis() + " ms). Figure: the most admitted in "
                + rounds + " bursts, a new key each; details: decisions the fallback made, calls left undecided, "
                + "the burst's mean length.", rows);
    }
}
