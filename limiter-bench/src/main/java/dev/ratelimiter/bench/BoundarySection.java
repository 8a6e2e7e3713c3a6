package dev.ratelimiter.bench;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.limiter.Limiter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

/**
 * What each algorithm admits over the same burst across a window's end, on each store (issue 32's table; measured,
 * not a goal): one key's first call opens its window, then calls paced one per millisecond from 0.2 s before the
 * first window's end to 0.2 s after it, at 100 per 2 s (the smoke: 0.1 s either side, at 100 per 1 s). A fixed
 * window admits the rest of its limit and a whole new one; a sliding window the rest of its limit and what the
 * previous window's weight leaves; a token bucket its burst and what refills. Real time on every store (each store's
 * own clock decides), so the figures move by a call or two between runs.
 */
final class BoundarySection {

    static final String TITLE = "What each algorithm admits across a window end";
    private static final long PACE_NANOS = 1_000_000L;

    private final Limit rate;
    private final long beforeEndNanos;
    private final int calls;
    private final List<Row> rows = new ArrayList<>();

    /**
     * The full run's burst: 100 per 2 s, from 0.2 s before the end, 400 calls. The smoke's: the shortest window a
     * limit has (1 s), from 0.1 s before its end, 200 calls, the same code path in half the time.
     */
    BoundarySection(Mode mode) {
        this.rate = new Limit(100, Duration.ofSeconds(mode.smoke() ? 1 : 2));
        this.beforeEndNanos = rate.window().toNanos() / 10;
        this.calls = (int) (2 * beforeEndNanos / PACE_NANOS);
    }

    /**
     * Measures the three algorithms on {@code limiter}, a store named {@code store} (Memory, Valkey, PostgreSQL),
     * each on a thread of its own, the three at once: their keys and buckets are apart, and a burst is mostly the
     * wait for its window's end.
     */
    void measure(String store, Limiter limiter) throws InterruptedException, ExecutionException {
        measure(Map.of(store, limiter));
    }

    /**
     * Measures several stores at once, by name, the three algorithms of each on threads of their own (the smoke
     * run's memory and Valkey: a second's wait for the window's end instead of two), recorded in {@code stores}'
     * order.
     */
    void measure(Map<String, Limiter> stores) throws InterruptedException, ExecutionException {
        long began = System.nanoTime();
        ExecutorService threads = Executors.newFixedThreadPool(3 * stores.size());
        try {
            Map<String, List<Future<Integer>>> runs = new LinkedHashMap<>();
            stores.forEach((store, limiter) -> runs.put(store, List.of(
                    threads.submit(() -> admitted(limiter, Algorithm.FIXED_WINDOW)),
                    threads.submit(() -> admitted(limiter, Algorithm.SLIDING_WINDOW)),
                    threads.submit(() -> admitted(limiter, Algorithm.TOKEN_BUCKET)))));
            for (Map.Entry<String, List<Future<Integer>>> run : runs.entrySet()) {
                List<Future<Integer>> admitted = run.getValue();
                record(run.getKey(), admitted.get(0).get(), admitted.get(1).get(), admitted.get(2).get());
            }
        } finally {
            threads.shutdownNow();
        }
        System.out.printf("bench: boundary on %s done in %.1f s%n", String.join(", ", stores.keySet()),
                (System.nanoTime() - began) / 1e9);
    }

    private void record(String store, int fixed, int sliding, int tokens) {
        Figure fixedFigure = new Figure("fixed window", fixed, "calls admitted");
        System.out.printf("bench: %s across a window end: fixed %d, sliding %d, token bucket %d%n", store, fixed,
                sliding, tokens);
        rows.add(Row.of(store + ": sliding window / fixed window, calls admitted", new Figure("sliding window",
                sliding, "calls admitted", Map.of("calls", (double) calls)), fixedFigure, Goal.none()));
        rows.add(Row.of(store + ": token bucket (burst " + rate.limit() + ") / fixed window, calls admitted",
                new Figure("token bucket", tokens, "calls admitted", Map.of("calls", (double) calls)), fixedFigure,
                Goal.none()));
    }

    private int admitted(Limiter limiter, Algorithm algorithm) {
        Bucket bucket = Bucket.of("bench-boundary-" + algorithm.configName(), List.of(rate), OutagePolicy.FALLBACK,
                algorithm, 0);
        String key = UUID.randomUUID().toString();
        long opened = System.nanoTime();
        limiter.consume(bucket, key);
        long first = opened + rate.window().toNanos() - beforeEndNanos;
        int admitted = 0;
        for (int i = 0; i < calls; i++) {
            long due = first + i * PACE_NANOS;
            for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            admitted += limiter.consume(bucket, key).isAllowed() ? 1 : 0;
        }
        return admitted;
    }

    Section section() {
        double window = rate.window().toMillis() / 1000.0;
        double before = beforeEndNanos / 1e9;
        return new Section(TITLE, "Limit " + rate.limit() + " per " + seconds(window) + " s; one key per algorithm "
                + "and store. Its first call opens the window (a token bucket: takes one of its " + rate.limit()
                + " tokens, refilled one per " + rate.window().toMillis() / rate.limit() + " ms); "
                + seconds(window - before) + " s later, " + calls + " calls paced 1 ms apart, each algorithm on a "
                + "thread of its own and the three at once, from " + seconds(before) + " s before the first "
                + "window's end to " + seconds(before) + " s after it. Figures: calls admitted of those " + calls
                + " (the opening call not counted). Same rule on every store (docs/guide.md#choosing-an-algorithm); "
                + "real time, each store on its own clock, so a figure moves by a call or two between runs.", rows);
    }

    /** {@code 2}, {@code 1.6}, {@code 0.2}: seconds as the text reads them. */
    private static String seconds(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(Math.round(value * 10) / 10.0);
    }
}
