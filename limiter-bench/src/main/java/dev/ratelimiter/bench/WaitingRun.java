package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.verdict.Reservations;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One closed-loop run of callers that wait for their reservations (issue 59, item 1; {@link WaitsSection}): each
 * caller decides one call on one shared new key of a reserving token bucket; an allowed call is parked until its
 * reserved time, the instant the decision returned plus {@link Reservations#waitOf}, then counted as run, with its
 * lateness (wake-up instant − reserved time); a refused call is counted and the caller decides again at once.
 * Figures are of the measured window alone, after the warm-up: a call counts as run if it woke within the window,
 * a refusal if it was decided within it.
 *
 * @param ran         calls run (woke) within the window
 * @param reserved    of those, the calls that had to wait (a wait above 0): 0 means the store did not reserve
 * @param refused     calls refused ({@code DENIED}) within the window: each needed more than max-wait
 * @param unavailable calls the store did not decide in time, refused by the bucket's outage policy, or that threw
 * @param nanos       the measured window's length, nanoseconds
 * @param lateness    each run call's wake-up instant − its reserved time, nanoseconds
 */
record WaitingRun(long ran, long reserved, long refused, long unavailable, long nanos, Histogram lateness) {

    /** How long a run waits for every caller's first answer (a pool connecting, a script loading) before it warms. */
    private static final Duration FIRST_ANSWER = Duration.ofSeconds(30);

    /** Calls run per second over the measured window. */
    double perSecond() {
        return ran * 1e9 / nanos;
    }

    /** A lateness percentile ({@code 100}: the largest), milliseconds. */
    double latenessMillis(double percentile) {
        if (lateness.getTotalCount() == 0) {
            return Double.NaN;
        }
        return (percentile >= 100 ? lateness.getMaxValue() : lateness.getValueAtPercentile(percentile)) / 1e6;
    }

    /**
     * @param decision the decision path the callers share
     * @param bucket   a bucket that reserves ({@link Bucket#reserves()})
     * @param callers  caller threads
     * @param warmup   run before the window opens, once every caller has had its first answer
     * @param duration the measured window
     */
    static WaitingRun run(LibraryPaths.Decision decision, Bucket bucket, int callers, Duration warmup,
                          Duration duration) throws InterruptedException {
        String key = "wait-" + UUID.randomUUID();
        Window window = new Window();
        CountDownLatch answered = new CountDownLatch(callers);
        AtomicReference<Throwable> crash = new AtomicReference<>();
        List<Waiter> threads = new ArrayList<>(callers);
        for (int i = 0; i < callers; i++) {
            Waiter caller = new Waiter(i, decision, bucket, key, window, answered, crash);
            threads.add(caller);
            caller.start();
        }
        long firstAnswerDeadline = System.nanoTime() + FIRST_ANSWER.toNanos();
        boolean allAnswered = false;
        while (!allAnswered && crash.get() == null && System.nanoTime() - firstAnswerDeadline < 0) {
            allAnswered = answered.await(10, TimeUnit.MILLISECONDS); // polled: a thread that crashed never answers
        }
        window.open(System.nanoTime() + warmup.toNanos(), duration.toNanos());
        for (Waiter caller : threads) {
            caller.join();
        }
        if (crash.get() != null) {
            throw new IllegalStateException("waiting callers failed on " + bucket.name(), crash.get());
        }
        Histogram lateness = new Histogram(3);
        long ran = 0;
        long reserved = 0;
        long refused = 0;
        long unavailable = 0;
        for (Waiter caller : threads) {
            lateness.add(caller.lateness);
            ran += caller.ran;
            reserved += caller.reserved;
            refused += caller.refused;
            unavailable += caller.unavailable;
        }
        return new WaitingRun(ran, reserved, refused, unavailable, duration.toNanos(), lateness);
    }

    /** The measured window, in {@code System.nanoTime()} instants, set once every caller has answered. */
    private static final class Window {
        private volatile long began;
        private volatile long end;
        private volatile boolean set; // written last: reading it true makes began and end visible

        void open(long began, long length) {
            this.began = began;
            this.end = began + length;
            this.set = true;
        }

        boolean contains(long instant) {
            return set && instant - began >= 0 && instant - end < 0;
        }

        /** Whether {@code instant} is at or past the window's end: the callers stop. */
        boolean over(long instant) {
            return set && instant - end >= 0;
        }
    }

    /** One caller thread; its figures are read after {@link #join()}. */
    private static final class Waiter extends Thread {
        private final LibraryPaths.Decision decision;
        private final Bucket bucket;
        private final String key;
        private final Window window;
        private final CountDownLatch answered;
        private final AtomicReference<Throwable> crash;
        final Histogram lateness = new Histogram(3);
        long ran;
        long reserved;
        long refused;
        long unavailable;

        Waiter(int index, LibraryPaths.Decision decision, Bucket bucket, String key, Window window,
               CountDownLatch answered, AtomicReference<Throwable> crash) {
            super("bench-waiter-" + index);
            setDaemon(true);
            this.decision = decision;
            this.bucket = bucket;
            this.key = key;
            this.window = window;
            this.answered = answered;
            this.crash = crash;
        }

        @Override
        public void run() {
            boolean first = true;
            try {
                while (crash.get() == null) {
                    Verdict verdict;
                    try {
                        verdict = decision.decide(bucket, key, KeyNormalization.NONE);
                    } catch (RuntimeException e) {
                        verdict = null; // not decided: counted as unavailable, as the outage policy's refusal
                    }
                    long decided = System.nanoTime();
                    if (first) {
                        first = false;
                        answered.countDown();
                    }
                    if (window.over(decided)) {
                        return;
                    }
                    if (verdict != null && verdict.isAllowed()) {
                        long wait = Reservations.waitOf(bucket, verdict).toNanos();
                        long due = decided + wait;
                        if (window.over(due)) {
                            return; // would run after the window: not counted, not waited for
                        }
                        long woke = parkUntil(due);
                        if (window.contains(woke)) {
                            ran++;
                            if (wait > 0) {
                                reserved++;
                            }
                            lateness.recordValue(woke - due);
                        }
                    } else if (window.contains(decided)) {
                        if (verdict != null && verdict.outcome() == Verdict.Outcome.DENIED) {
                            refused++;
                        } else {
                            unavailable++;
                        }
                    }
                }
            } catch (Throwable t) {
                crash.compareAndSet(null, t);
            } finally {
                if (first) {
                    answered.countDown(); // crashed before its first answer: the run need not wait for it
                }
            }
        }

        /** Parks until {@code due} ({@code System.nanoTime()}), again after a spurious wake-up; the wake instant. */
        private static long parkUntil(long due) {
            long now = System.nanoTime();
            while (due - now > 0) {
                LockSupport.parkNanos(due - now);
                now = System.nanoTime();
            }
            return now;
        }
    }
}
