package dev.ratelimiter.bench;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.limiter.Limiter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

/**
 * What each algorithm admits over the same burst across a window's end, on each store (issue 32's table; measured,
 * not a goal): one key's first call opens its window, then calls paced one per millisecond from 0.2 s before the
 * first window's end to 0.2 s after it, at 100 per 2 s. A fixed window admits the rest of its limit and a whole new
 * one; a sliding window the rest of its limit and what the previous window's weight leaves; a token bucket its burst
 * and what refills. Real time on every store (each store's own clock decides), so the figures move by a call or two
 * between runs.
 */
final class BoundarySection {

    static final String TITLE = "What each algorithm admits across a window end";
    private static final Limit RATE = new Limit(100, Duration.ofSeconds(2));
    private static final long BEFORE_END_NANOS = 200_000_000L;
    private static final int CALLS = 400;
    private static final long PACE_NANOS = 1_000_000L;

    private final List<Row> rows = new ArrayList<>();

    /** Measures the three algorithms on {@code limiter}, a store named {@code store} (Memory, Valkey, PostgreSQL). */
    void measure(String store, Limiter limiter) {
        int fixed = admitted(limiter, Algorithm.FIXED_WINDOW);
        int sliding = admitted(limiter, Algorithm.SLIDING_WINDOW);
        int tokens = admitted(limiter, Algorithm.TOKEN_BUCKET);
        Figure fixedFigure = new Figure("fixed window", fixed, "calls admitted");
        System.out.printf("bench: %s across a window end: fixed %d, sliding %d, token bucket %d%n", store, fixed,
                sliding, tokens);
        rows.add(Row.of(store + ": sliding window / fixed window, calls admitted", new Figure("sliding window",
                sliding, "calls admitted", Map.of("calls", (double) CALLS)), fixedFigure, Goal.none()));
        rows.add(Row.of(store + ": token bucket (burst 100) / fixed window, calls admitted", new Figure(
                "token bucket", tokens, "calls admitted", Map.of("calls", (double) CALLS)), fixedFigure, Goal.none()));
    }

    private static int admitted(Limiter limiter, Algorithm algorithm) {
        Bucket bucket = Bucket.of("bench-boundary-" + algorithm.configName(), List.of(RATE), OutagePolicy.FALLBACK,
                algorithm, 0);
        String key = UUID.randomUUID().toString();
        long opened = System.nanoTime();
        limiter.consume(bucket, key);
        long first = opened + RATE.window().toNanos() - BEFORE_END_NANOS;
        int admitted = 0;
        for (int i = 0; i < CALLS; i++) {
            long due = first + i * PACE_NANOS;
            for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            admitted += limiter.consume(bucket, key).isAllowed() ? 1 : 0;
        }
        return admitted;
    }

    Section section() {
        return new Section(TITLE, "Limit 100 per 2 s; one key per algorithm and store. Its first call opens the "
                + "window (a token bucket: takes one of its 100 tokens, refilled one per 20 ms); 1.6 s later, "
                + CALLS + " calls paced 1 ms apart on one thread, from 0.2 s before the first window's end to 0.2 s "
                + "after it. Figures: calls admitted of those " + CALLS + " (the opening call not counted). Same "
                + "rule on every store (docs/guide.md#choosing-an-algorithm); real time, each store on its own "
                + "clock, so a figure moves by a call or two between runs.", rows);
    }
}
