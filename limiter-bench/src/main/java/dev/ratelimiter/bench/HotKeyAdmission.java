package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.Verdict;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * What replicas admit on one key they exhaust together (issue 60, item 4): every replica's callers, released at
 * once, call on one new key until each caller has been refused {@link #REFUSALS} times in a row, so that every
 * replica saw the key refused whatever quota its leases held, or until the deadline.
 *
 * @param admitted    calls allowed, by a lease or by the store
 * @param refused     calls refused ({@code DENIED})
 * @param unavailable calls the store did not decide in time, refused by the bucket's outage policy
 *                    ({@code fail-closed}), so no undecided call is admitted apart from the store's count
 * @param nanos       from the callers' release to the last caller's end
 * @param deadline    true if the deadline ended the run before every caller was refused in a row: the key was not
 *                    exhausted (an outage) and the run says little
 */
record HotKeyAdmission(long admitted, long refused, long unavailable, long nanos, boolean deadline) {

    /** Refusals in a row that end a caller: one could be a refusal kept in memory just before a give-back. */
    static final int REFUSALS = 5;

    /**
     * @param replicas          the replicas, each called by {@code threadsPerReplica} callers
     * @param threadsPerReplica callers per replica
     * @param bucket            the bucket counted, on a new key
     * @param deadline          how long the run may last: under the bucket's window, so no window end lets a
     *                          second window's quota in
     */
    static HotKeyAdmission run(HotKeyReplicas replicas, int threadsPerReplica, Bucket bucket, Duration deadline)
            throws InterruptedException {
        String key = "hot-" + UUID.randomUUID();
        LongAdder admitted = new LongAdder();
        LongAdder refused = new LongAdder();
        LongAdder unavailable = new LongAdder();
        AtomicBoolean late = new AtomicBoolean();
        int callers = replicas.size() * threadsPerReplica;
        CountDownLatch ready = new CountDownLatch(callers);
        CountDownLatch go = new CountDownLatch(1);
        long[] end = new long[1];
        List<Thread> threads = new ArrayList<>(callers);
        for (int i = 0; i < callers; i++) {
            LibraryPaths.Decision replica = replicas.forCaller(i);
            Thread thread = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                int inRow = 0;
                while (inRow < REFUSALS) {
                    if (System.nanoTime() - end[0] > 0) {
                        late.set(true);
                        return;
                    }
                    Verdict verdict = replica.decide(bucket, key, KeyNormalization.NONE);
                    switch (verdict.outcome()) {
                        case ALLOWED -> {
                            admitted.increment();
                            inRow = 0;
                        }
                        case DENIED -> {
                            refused.increment();
                            inRow++;
                        }
                        // an outage's refusal says nothing of the key's quota: neither ends nor restarts the row
                        default -> unavailable.increment();
                    }
                }
            }, "hot-key-" + i);
            threads.add(thread);
            thread.start();
        }
        ready.await();
        long began = System.nanoTime();
        end[0] = began + deadline.toNanos(); // written before go's count-down, which publishes it to the callers
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        return new HotKeyAdmission(admitted.sum(), refused.sum(), unavailable.sum(), System.nanoTime() - began,
                late.get());
    }
}
