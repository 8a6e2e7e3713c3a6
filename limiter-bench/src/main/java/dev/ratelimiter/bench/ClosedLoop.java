package dev.ratelimiter.bench;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * A closed-loop load driver: each client thread calls, waits for the answer, and calls again. Reports decisions
 * per second, the latency of each call (HdrHistogram, p50 and p99) and the bytes the calling threads allocated per
 * call ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}: what the client side costs the heap,
 * not the server's or a pool's background threads).
 */
final class ClosedLoop {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** How long a load waits for each thread's first answer, then for a first counted call, before going on. */
    private static final Duration FIRST_ANSWER = Duration.ofSeconds(30);

    private ClosedLoop() {
    }

    /**
     * @param source  the name the figure carries
     * @param load    threads, keys and durations
     * @param callers makes each thread's caller, by thread index
     */
    static Figure run(String source, Load load, IntFunction<Caller> callers) throws InterruptedException {
        int threads = load.threads();
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> crash = new AtomicReference<>();
        CountDownLatch answered = new CountDownLatch(threads);
        AtomicBoolean counted = new AtomicBoolean();
        List<Worker> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Worker worker = new Worker(callers.apply(i), load.keys(), i, start, answered, counted, measuring, stop,
                    crash);
            workers.add(worker);
            worker.start();
        }
        await(start);
        // The warm-up starts once every thread has had its first answer: a first call that connects a pool or loads
        // a script may outlast a smoke run's whole warm-up and measure on a loaded machine, which would count none.
        long firstAnswerDeadline = System.nanoTime() + FIRST_ANSWER.toNanos();
        boolean allAnswered = false;
        while (!allAnswered && crash.get() == null && System.nanoTime() < firstAnswerDeadline) {
            allAnswered = answered.await(10, TimeUnit.MILLISECONDS); // polled: a thread that crashed never answers
        }
        Thread.sleep(load.warmup().toMillis());
        long began = System.nanoTime();
        measuring.set(true);
        Thread.sleep(load.duration().toMillis());
        // And it lasts until a call was counted: on a loaded machine a smoke run's 50 ms may see no call begin and
        // end, which says nothing of the contender. A full run's seconds always see many.
        long countedDeadline = System.nanoTime() + FIRST_ANSWER.toNanos();
        while (!counted.get() && crash.get() == null && System.nanoTime() < countedDeadline) {
            Thread.sleep(10);
        }
        measuring.set(false);
        long elapsed = System.nanoTime() - began;
        stop.set(true);
        Histogram latency = new Histogram(3);
        long calls = 0;
        long failures = 0;
        long allocated = 0;
        for (Worker worker : workers) {
            worker.join();
            latency.add(worker.latency);
            calls += worker.calls;
            failures += worker.failures;
            allocated += worker.allocated;
        }
        if (crash.get() != null) {
            throw new IllegalStateException(source + " failed under " + load.describe(), crash.get());
        }
        if (calls == 0) {
            throw new IllegalStateException(source + " made no call under " + load.describe());
        }
        double seconds = elapsed / 1e9;
        return new Figure(source, (calls - failures) / seconds, "decisions/s", java.util.Map.of(
                "p50_us", latency.getValueAtPercentile(50) / 1e3,
                "p99_us", latency.getValueAtPercentile(99) / 1e3,
                "bytes_per_call", (double) allocated / calls,
                "not_decided", (double) failures));
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One client thread; its figures are read after {@link #join()}. */
    private static final class Worker extends Thread {
        final Caller caller;
        final int keys;
        final CyclicBarrier start;
        final CountDownLatch answered;
        /** Set by a thread's first counted call, once: no shared write per call to weigh on the figures. */
        final AtomicBoolean counted;
        final AtomicBoolean measuring;
        final AtomicBoolean stop;
        final AtomicReference<Throwable> crash;
        final Histogram latency = new Histogram(3);
        final SplittableRandom random;
        long calls;
        long failures;
        long allocated;

        Worker(Caller caller, int keys, int index, CyclicBarrier start, CountDownLatch answered,
               AtomicBoolean counted, AtomicBoolean measuring, AtomicBoolean stop,
               AtomicReference<Throwable> crash) {
            super("bench-client-" + index);
            setDaemon(true);
            this.caller = caller;
            this.keys = keys;
            this.random = new SplittableRandom(index);
            this.start = start;
            this.answered = answered;
            this.counted = counted;
            this.measuring = measuring;
            this.stop = stop;
            this.crash = crash;
        }

        @Override
        public void run() {
            await(start);
            long id = getId();
            long allocatedAtStart = -1;
            boolean firstAnswer = false;
            try {
                while (!stop.get()) {
                    boolean measured = measuring.get();
                    if (measured && allocatedAtStart < 0) {
                        allocatedAtStart = THREADS.getThreadAllocatedBytes(id);
                    }
                    int key = keys == 1 ? 0 : random.nextInt(keys);
                    long began = System.nanoTime();
                    boolean decided;
                    try {
                        decided = caller.call(key);
                    } catch (Exception e) {
                        decided = false;
                    }
                    long took = System.nanoTime() - began;
                    if (!firstAnswer) {
                        firstAnswer = true;
                        answered.countDown();
                    }
                    if (measured && measuring.get()) {
                        latency.recordValue(took);
                        calls++;
                        if (calls == 1) {
                            counted.set(true);
                        }
                        if (!decided) {
                            failures++;
                        }
                    }
                    if (!measuring.get() && allocatedAtStart >= 0 && allocated == 0) {
                        allocated = THREADS.getThreadAllocatedBytes(id) - allocatedAtStart;
                    }
                }
                if (allocatedAtStart >= 0 && allocated == 0) { // stopped before it saw the measurement end
                    allocated = THREADS.getThreadAllocatedBytes(id) - allocatedAtStart;
                }
            } catch (Throwable t) {
                crash.compareAndSet(null, t);
            }
        }
    }
}
