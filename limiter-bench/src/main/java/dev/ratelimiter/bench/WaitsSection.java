package dev.ratelimiter.bench;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Waiting instead of refusing (issue 59, item 1): {@link #CALLERS} closed-loop callers share one key of a token
 * bucket of {@link #RATE} calls per second, burst {@link #BURST}, that reserves up to {@link #MAX_WAIT} ahead; each
 * allowed call waits until its reserved time, then runs ({@link WaitingRun}). Measured per store (memory, Valkey,
 * PostgreSQL), two rows each:
 * <ul>
 *   <li>calls run per second (unit {@code calls/s}) beside the bucket's rate, {@value #RATE} calls/s: the ratio is
 *       the share of the bucket's tokens that callers used, goal ≥ {@value #GOAL}; details: refusals, calls left
 *       undecided, calls that had to wait (calls), the measured window (seconds);</li>
 *   <li>the lateness of a run call after its reserved time (unit {@code ms}): its p99 as the figure, the p50 and the
 *       largest in the details, in milliseconds.</li>
 * </ul>
 * Full: 2 s warm-up and 10 s measured per store; smoke: 500 ms and 2 s.
 */
final class WaitsSection {

    static final String TITLE = "Waiting for reservations on one hot key";
    static final int CALLERS = 64;
    /** The bucket's rate: calls per second. */
    static final long RATE = 1_000;
    /** Tokens the bucket holds when full: small, so nearly every call under load reserves ahead. */
    static final long BURST = 10;
    /** How far ahead the bucket reserves: 500 ms holds 500 calls, more than the callers ever wait at once. */
    static final Duration MAX_WAIT = Duration.ofMillis(500);
    /** The share of the bucket's rate the callers should run. */
    static final double GOAL = 0.98;

    private final Duration warmup;
    private final Duration duration;
    private final Bucket bucket;
    private final List<Row> rows = new ArrayList<>();

    WaitsSection(Mode mode) {
        this.warmup = mode.smoke() ? Duration.ofMillis(500) : Duration.ofSeconds(2);
        this.duration = mode.smoke() ? Duration.ofSeconds(2) : Duration.ofSeconds(10);
        // fail-closed: a call the store did not decide in time is refused, never admitted by a fallback that would
        // count apart from the store's reservations
        this.bucket = Bucket.of("bench-waits", List.of(new Limit(RATE, Duration.ofSeconds(1))),
                OutagePolicy.FAIL_CLOSED, Algorithm.TOKEN_BUCKET, BURST).withMaxWait(MAX_WAIT);
        if (!bucket.reserves()) {
            throw new IllegalStateException("the waits section's bucket does not reserve: " + bucket);
        }
    }

    /** The buckets the decision paths are registered with, for their metrics. */
    List<Bucket> buckets() {
        return List.of(bucket);
    }

    /** Measures the store named {@code store} on the decision path {@code path}, closed afterwards. */
    void measure(String store, LibraryPaths.Decision path) throws Exception {
        long began = System.nanoTime();
        WaitingRun run;
        try (path) {
            run = WaitingRun.run(path, bucket, CALLERS, warmup, duration);
        }
        System.out.printf("bench: %s waits: %.0f calls run/s of %d (%.3f), %d of %d waited, lateness p50 %.2f ms, "
                        + "p99 %.2f ms, max %.2f ms; %d refused, %d undecided%n", store, run.perSecond(), RATE,
                run.perSecond() / RATE, run.reserved(), run.ran(), run.latenessMillis(50), run.latenessMillis(99),
                run.latenessMillis(100), run.refused(), run.unavailable());
        if (run.ran() > 0 && run.reserved() == 0) {
            System.out.printf("bench: WARNING %s waits: no call waited, so the store did not reserve ahead (a store "
                    + "built before reservations on the class path?): its figures are not of reservations%n", store);
        }
        // A store that does not reserve still runs the bucket's rate (its callers retry refusals at once): said in
        // the row, so its met goal is not read as the reservations' figure.
        String what = store + ", " + CALLERS + " threads, one key"
                + (run.ran() > 0 && run.reserved() == 0 ? " (no call waited: the store did not reserve)" : "");
        Map<String, Double> details = new LinkedHashMap<>();
        details.put("refused", (double) run.refused());
        details.put("unavailable", (double) run.unavailable());
        details.put("waited", (double) run.reserved());
        details.put("measured_s", run.nanos() / 1e9);
        rows.add(Row.of(what + ": calls run/s / bucket rate",
                new Figure("calls run", run.perSecond(), "calls/s", details),
                new Figure("bucket rate", RATE, "calls/s"),
                Goal.atLeast(59, GOAL, "calls run / bucket rate, waiting for reservations",
                        "callers whose reservations were due ran late or not at all: the store could not decide "
                        + RATE + " calls/s on one key for " + CALLERS + " callers (unavailable: calls not decided "
                        + "in time), or parked callers woke late on a loaded machine (the lateness row); a "
                        + "reservation is counted when it is made, so a late caller's token is spent unused "
                        + "(docs/guide.md#waiting-instead-of-refusing).")));
        Map<String, Double> lateness = new LinkedHashMap<>();
        lateness.put("p50_ms", run.latenessMillis(50));
        lateness.put("max_ms", run.latenessMillis(100));
        lateness.put("calls", (double) run.lateness().getTotalCount());
        double p99 = run.latenessMillis(99);
        rows.add(Row.alone(what + ": lateness after the reserved time, p99",
                new Figure("lateness", Double.isNaN(p99) ? 0 : p99, "ms", lateness)));
        System.out.printf("bench: waits, %s done in %.1f s%n", store, (System.nanoTime() - began) / 1e9);
    }

    Section section() {
        return new Section(TITLE, CALLERS + " closed-loop callers share one new key of a token bucket of "
                + RATE + " calls per second, burst " + BURST + ", `max-wait` " + MAX_WAIT.toMillis()
                + " ms (`fail-closed`), on the decision path a waiting caller takes (the store reserves a call's "
                + "tokens ahead, up to max-wait, and the verdict says the wait: `Reservations.waitOf`). Each "
                + "allowed call is parked until its reserved time, the instant its verdict returned plus its wait "
                + "(rounded up to the millisecond, so never early), then counted as run; a refused call is counted "
                + "and the caller decides again at once. The interceptor's `max-waiting` (25 per process by "
                + "default) is not applied: all " + CALLERS + " callers may wait, as with `max-waiting` " + CALLERS
                + ". " + warmup.toMillis() + " ms warm-up after every caller's first answer, then "
                + duration.toMillis() + " ms measured per store: calls run are those that woke within it, "
                + "refusals those decided within it. Rows: calls run per second beside the bucket's rate (goal: "
                + "the callers use at least " + GOAL + " of it), with the refusals, the calls not decided and the "
                + "calls that waited (0: the store did not reserve); the lateness of run calls, wake-up minus "
                + "reserved time, in ms (HdrHistogram: p99 as the figure, p50 and the largest in the details).",
                rows);
    }
}
