package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreBatching;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreParts;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The calls that wait for a store, carried together (docs/stores.md#batching), with no timer: per part of the store
 * (the whole store when it has no parts), at most {@link StoreBatching#roundTrips()} round trips are in flight. A
 * call that finds one free and nobody waiting goes at once, alone ({@link RateLimitStore#consume}); otherwise it
 * queues, and whichever thread next takes a free round trip carries everything queued, up to
 * {@link StoreBatching#maxCalls()}, in one {@link RateLimitStore#consumeEach}. The thread whose call was carried by
 * another waits for its answer; a call still queued after {@link StoreBatching#maxWait()} leaves the queue and fails
 * as a timeout that counted nothing, so no call waits here longer than it would have for a pooled connection.
 *
 * <p>Failure stays per call: a failed round trip fails each call it carried, with the same {@link StoreException},
 * and is reported once ({@link Outcomes}); a call the store left undecided ({@code null} in the answer) goes again
 * alone. A call of several items whose items lie in different parts is never queued: it goes alone.
 */
final class RoundTripBatcher {

    /** Told of each round trip, once: where the circuit breaker and the backend's monitor learn of it. */
    interface Outcomes {

        /**
         * @param first   the first item the round trip carried
         * @param failure its failure, or {@code null} if it succeeded
         */
        void roundTrip(StoreItem first, StoreException failure);
    }

    private final RateLimitStore store;
    private final int maxCalls;
    private final int roundTrips;
    private final long maxWaitNanos;
    private final StoreParts parts; // null when the store is one part
    private final Lane whole; // null when the store has parts
    private final ConcurrentHashMap<String, Lane> lanes = new ConcurrentHashMap<>();
    private final Outcomes outcomes;

    /**
     * @param store    the store, which offers batching
     * @param batching how it batches
     * @param outcomes told of each round trip
     */
    RoundTripBatcher(RateLimitStore store, StoreBatching batching, Outcomes outcomes) {
        this.store = Objects.requireNonNull(store, "store");
        this.maxCalls = batching.maxCalls();
        this.roundTrips = batching.roundTrips();
        this.maxWaitNanos = batching.maxWait().toNanos();
        this.outcomes = Objects.requireNonNull(outcomes, "outcomes");
        Optional<StoreParts> storeParts = store.parts();
        this.parts = storeParts.orElse(null);
        this.whole = parts == null ? new Lane() : null;
    }

    /**
     * Decides one call, alone or carried with others.
     *
     * @param items the call's items, keys hashed
     * @return {@link RateLimitStore#consume}'s answer for them
     * @throws StoreException its round trip failed, or it waited longer than the store's wait for a connection
     */
    long[] consume(List<StoreItem> items) throws StoreException {
        Lane lane = laneOf(items);
        if (lane == null) {
            return alone(items);
        }
        if (lane.queue.isEmpty() && lane.permits.tryAcquire()) {
            try {
                return alone(items);
            } finally {
                lane.release();
            }
        }
        return lane.await(new Call(items, Thread.currentThread()));
    }

    /** One round trip for one call, reported. */
    private long[] alone(List<StoreItem> items) throws StoreException {
        return alone(store, items, outcomes);
    }

    /**
     * One round trip of {@code store} for one call, reported to {@code outcomes}; a store's {@link RuntimeException}
     * (its own bug) becomes a {@link FailureKind#TRANSIENT} failure, so the outage policy decides and nothing reaches
     * a 500. Also the whole path of a store that does not batch ({@link StoreLimiter}).
     */
    static long[] alone(RateLimitStore store, List<StoreItem> items, Outcomes outcomes) throws StoreException {
        StoreException failure = null;
        try {
            return store.consume(items);
        } catch (StoreException e) {
            failure = e;
            throw e;
        } catch (RuntimeException e) {
            failure = new StoreException(FailureKind.TRANSIENT, e);
            throw failure;
        } finally {
            outcomes.roundTrip(items.get(0), failure);
        }
    }

    /** The lane of the call's part; null when its items lie in several parts (it then goes alone). */
    private Lane laneOf(List<StoreItem> items) {
        if (parts == null) {
            return whole;
        }
        StoreItem first = items.get(0);
        String part = parts.partOf(first.bucket(), first.key());
        for (int i = 1; i < items.size(); i++) {
            if (!part.equals(parts.partOf(items.get(i).bucket(), items.get(i).key()))) {
                return null;
            }
        }
        Lane lane = lanes.get(part); // get first: computeIfAbsent may lock even when present
        return lane != null ? lane : lanes.computeIfAbsent(part, p -> new Lane());
    }

    /** The round trips in flight to one part, and the calls waiting for the next. */
    private final class Lane {

        final Semaphore permits = new Semaphore(roundTrips);
        final Queue<Call> queue = new ConcurrentLinkedQueue<>();

        /** Waits until another thread carried the call, or carries it and those queued with it. */
        long[] await(Call call) throws StoreException {
            queue.add(call);
            long deadline = System.nanoTime() + maxWaitNanos;
            boolean interrupted = false;
            try {
                while (true) {
                    int state = call.state;
                    if (state == Call.DONE) {
                        return call.answer();
                    }
                    if (state == Call.WAITING && permits.tryAcquire()) {
                        carry(); // frees the round trip, once, as soon as its answer is in
                        continue;
                    }
                    long left = deadline - System.nanoTime();
                    if (state == Call.WAITING && left <= 0) {
                        if (call.abandon()) {
                            queue.remove(call);
                            StoreException timeout = new StoreException(FailureKind.TRANSIENT, new TimeoutException(
                                    "no round trip to the store within " + maxWaitNanos / 1_000_000 + " ms"));
                            outcomes.roundTrip(call.items.get(0), timeout);
                            throw timeout;
                        }
                        continue;
                    }
                    // A carried call waits for its round trip, which the store's own deadline bounds.
                    LockSupport.parkNanos(this, state == Call.WAITING ? left : maxWaitNanos);
                    if (Thread.interrupted()) {
                        interrupted = true; // kept for the caller: parking again at once would spin
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * One round trip for everything queued, up to the bound, holding a round trip taken by the caller. It frees
         * that round trip, and wakes the next waiting call's thread to carry the queue, as soon as the store has
         * answered and before it hands the answers out: the next round trip then travels while this one's threads
         * wake, rather than after.
         */
        private void carry() {
            List<Call> carried = new ArrayList<>(maxCalls); // once per round trip: never grown under load
            long[][] answers = null;
            StoreException failure = null;
            try {
                Call next;
                while (carried.size() < maxCalls && (next = queue.poll()) != null) {
                    if (next.take()) {
                        carried.add(next);
                    }
                }
                if (carried.size() == 1) {
                    Call call = carried.get(0);
                    try {
                        answers = new long[][] {alone(call.items)};
                    } catch (StoreException e) {
                        failure = e; // reported by alone
                    }
                } else if (carried.size() > 1) {
                    answers = together(carried);
                }
            } catch (StoreException e) {
                failure = e;
                outcomes.roundTrip(carried.get(0).items.get(0), e);
            } finally {
                release();
            }
            for (int i = 0; i < carried.size(); i++) {
                Call call = carried.get(i);
                if (failure != null) {
                    call.done(null, failure);
                } else if (answers[i] != null) {
                    call.done(answers[i], null);
                }
            }
            if (answers != null) { // answered first, so the decided calls do not wait for these
                for (int i = 0; i < answers.length; i++) {
                    if (answers[i] == null) {
                        decideAlone(carried.get(i));
                    }
                }
            }
        }

        /** One round trip of {@link RateLimitStore#consumeEach} for several calls, reported when it succeeds. */
        private long[][] together(List<Call> carried) throws StoreException {
            List<List<StoreItem>> calls = new ArrayList<>(carried.size());
            for (Call call : carried) {
                calls.add(call.items);
            }
            long[][] answers;
            try {
                answers = store.consumeEach(calls);
            } catch (RuntimeException e) {
                throw new StoreException(FailureKind.TRANSIENT, e);
            }
            if (answers == null || answers.length != calls.size()) {
                throw new StoreException(FailureKind.TRANSIENT, new IllegalStateException(store.getClass().getName()
                        + " answered " + (answers == null ? "null" : answers.length) + " calls of " + calls.size()));
            }
            outcomes.roundTrip(calls.get(0).get(0), null);
            return answers;
        }

        private void decideAlone(Call call) {
            try {
                call.done(alone(call.items), null);
            } catch (StoreException e) {
                call.done(null, e);
            }
        }

        /** Frees a round trip, and wakes the first waiting call's thread to carry the queue. */
        void release() {
            permits.release();
            Call head;
            while ((head = queue.peek()) != null) {
                if (head.state == Call.WAITING) {
                    LockSupport.unpark(head.thread);
                    return;
                }
                queue.remove(head); // given up, or taken by a carrier that polled past it
            }
        }
    }

    /** One waiting call: queued, then taken by a carrier (or given up), then answered. */
    private static final class Call {

        static final int WAITING = 0;
        static final int TAKEN = 1;
        static final int DONE = 2;
        static final int ABANDONED = 3;

        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Call.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final List<StoreItem> items;
        final Thread thread;
        volatile int state;
        private long[] numbers; // written before state becomes DONE, read after
        private StoreException failure;

        Call(List<StoreItem> items, Thread thread) {
            this.items = items;
            this.thread = thread;
        }

        boolean take() {
            return STATE.compareAndSet(this, WAITING, TAKEN);
        }

        boolean abandon() {
            return STATE.compareAndSet(this, WAITING, ABANDONED);
        }

        void done(long[] answer, StoreException failed) {
            numbers = answer;
            failure = failed;
            state = DONE;
            LockSupport.unpark(thread);
        }

        long[] answer() throws StoreException {
            if (failure != null) {
                throw failure;
            }
            return numbers;
        }
    }
}
