package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics.WaitOutcome;
import dev.ratelimiter.internal.core.settings.PropertyTable;
import dev.ratelimiter.internal.core.verdict.Reservations;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Bounded waits (docs/guide.md#waiting-instead-of-refusing) for the first bucket of a {@code @RateLimited} method
 * whose {@link Bucket#maxWait()} is set. A call takes a {@link Turn} before it is decided: at most
 * {@code max-waiting} calls of a bucket hold one at once in this process, and a call that finds none free is refused
 * at once, without a store call, so waiting callers cannot take every request thread. With a turn:
 * <ul>
 *   <li>a token bucket of one window reserves the call's tokens in the store, in the order calls come, and the call
 *       waits until they are there ({@link Reservations#waitOf});</li>
 *   <li>any other refusal of the bucket by its own limits (a window's end, a sliding window, a token bucket of
 *       several windows, a block or an upstream's hold) is waited out, its {@code resetAfter}, if that ends within
 *       the bound, and the call is decided again then, as often as the bound allows; a refusal that asks for a longer
 *       wait is returned at once, since waiting could not end in the call running.</li>
 * </ul>
 * A plain method waits on its own thread, parked; a {@code CompletionStage} or {@code Uni} method waits without a
 * thread: it is decided again, or run, on the library's scheduler ({@link #later}).
 *
 * <p>Only the first bucket a method decides waits: a later bucket's refusal comes after the earlier ones counted the
 * call, and deciding again would count it twice. A key on the deny list and an outage's refusal are never waited out.
 */
@ApplicationScoped
public class WaitingCalls {

    /** The longest a waiting thread parks before it reads the clock again: the library's clock may be a test's. */
    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    @Inject
    LimiterConfiguration configuration;

    @Inject
    InstantSource clock;

    @Inject
    RateLimitDecider decider;

    private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();
    private volatile ScheduledExecutorService scheduler;

    /**
     * A turn to wait for {@code bucket}, the first bucket of a call, if its calls wait.
     *
     * @return {@code null} when the bucket's calls do not wait; else a turn, which the caller must
     *         {@link Turn#release()} (a turn that found every place taken refuses at once: {@link Turn#full()})
     */
    Turn turn(Bucket bucket) {
        if (bucket.maxWait().isZero()) {
            return null;
        }
        int most = configuration.settings().maxWaiting().getOrDefault(bucket.name(),
                Integer.parseInt(PropertyTable.BUCKET_MAX_WAITING.defaultValue().orElseThrow()));
        AtomicInteger count = waiting.computeIfAbsent(bucket.name(), name -> new AtomicInteger());
        if (count.incrementAndGet() > most) {
            count.decrementAndGet();
            return new Turn(bucket, null, 0);
        }
        return new Turn(bucket, count, clock.millis() + bucket.maxWait().toMillis());
    }

    /** {@return the calls of the bucket holding a turn now in this process: waiting, or being decided} */
    public int waiting(String bucket) {
        AtomicInteger count = waiting.get(bucket);
        return count == null ? 0 : count.get();
    }

    /**
     * Waits out, on this thread, what the first decision asks of a call holding a turn: a reservation's wait, or a
     * refusal within the bound, decided again after each wait (docs/guide.md#waiting-instead-of-refusing).
     *
     * @return the last refusal, or {@code null} once the call may run; an interrupted wait refuses the call, the
     *         thread's interrupt kept
     */
    RateLimitException onThisThread(Turn turn, RateLimitException decided,
                                                Supplier<RateLimitException> decideAgain) {
        RateLimitException refusal = decided;
        for (long pause = turn.pauseMillis(refusal); pause >= 0; pause = turn.pauseMillis(refusal)) {
            if (!pause(turn, pause)) {
                return refusal != null ? refusal : turn.interrupted();
            }
            if (refusal == null) {
                return null; // the reservation's tokens are there
            }
            refusal = decideAgain.get();
        }
        return refusal;
    }

    /**
     * Parks the thread until the library's clock reads {@code millis} from now, in slices of at most
     * {@link #SLICE_NANOS}; false if it was interrupted (the flag kept). Parking, not a sleep that throws: a
     * spurious wake-up parks again.
     */
    boolean pause(Turn turn, long millis) {
        turn.waitedMillis += millis;
        long until = clock.millis() + millis;
        for (long left = millis; left > 0; left = until - clock.millis()) {
            LockSupport.parkNanos(Math.min(TimeUnit.MILLISECONDS.toNanos(left), SLICE_NANOS));
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits out, without a thread, what a decision of an asynchronous method asks, then runs the method: the
     * decision's refusal waited out and decided again ({@code decideAgain}) as often as the turn allows, or its
     * reservation waited for; a refusal the turn cannot wait out fails the stage. The waits run on the library's
     * scheduler, in the caller's class loader.
     *
     * @param turn        the call's turn, released when the method runs or the call is refused
     * @param refusal     the first decision's refusal, or {@code null} if it admitted the call
     * @param decideAgain decides the call again: its refusal, or {@code null} once admitted
     * @param proceed     runs the method: its {@code CompletionStage}
     * @return the stage of the method's result, or of the refusal
     */
    CompletionStage<Object> later(Turn turn, RateLimitException refusal, Supplier<RateLimitException> decideAgain,
                                  Callable<CompletionStage<?>> proceed) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        step(turn, refusal, decideAgain, proceed, result, Thread.currentThread().getContextClassLoader());
        return result;
    }

    /**
     * As {@link #later}, the first decision made on the library's scheduler too: for a {@code Uni}, subscribed on a
     * thread that may not wait for the store (a Vert.x event loop).
     */
    CompletionStage<Object> decidedLater(Turn turn, Supplier<RateLimitException> decide,
                                         Callable<CompletionStage<?>> proceed) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try {
            scheduler().execute(() -> {
                Thread thread = Thread.currentThread();
                ClassLoader own = thread.getContextClassLoader();
                thread.setContextClassLoader(loader);
                try {
                    step(turn, decide.get(), decide, proceed, result, loader);
                } catch (Throwable e) {
                    turn.release();
                    result.completeExceptionally(e);
                } finally {
                    thread.setContextClassLoader(own);
                }
            });
        } catch (RuntimeException e) { // rejected: the application is stopping
            turn.release();
            result.completeExceptionally(e);
        }
        return result;
    }

    private void step(Turn turn, RateLimitException refusal, Supplier<RateLimitException> decideAgain,
                      Callable<CompletionStage<?>> proceed, CompletableFuture<Object> result, ClassLoader loader) {
        long pause = turn.pauseMillis(refusal);
        if (pause < 0 && refusal != null) {
            turn.finish(refusal);
            result.completeExceptionally(refusal);
            return;
        }
        turn.waitedMillis += Math.max(pause, 0);
        Runnable next = () -> {
            Thread thread = Thread.currentThread();
            ClassLoader own = thread.getContextClassLoader();
            thread.setContextClassLoader(loader);
            try {
                if (refusal != null) {
                    step(turn, decideAgain.get(), decideAgain, proceed, result, loader);
                } else {
                    turn.finish(null);
                    proceed.call().whenComplete((value, failure) -> {
                        if (failure != null) {
                            result.completeExceptionally(failure);
                        } else {
                            result.complete(value);
                        }
                    });
                }
            } catch (Throwable e) {
                turn.finish(null);
                result.completeExceptionally(e);
            } finally {
                thread.setContextClassLoader(own);
            }
        };
        if (pause <= 0) {
            next.run(); // admitted with no wait: on this thread, as a call that does not wait
        } else {
            try {
                scheduler().schedule(next, pause, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) { // rejected: the application is stopping
                turn.release();
                result.completeExceptionally(e);
            }
        }
    }

    private ScheduledExecutorService scheduler() {
        ScheduledExecutorService made = scheduler;
        if (made == null) {
            synchronized (this) {
                made = scheduler;
                if (made == null) {
                    AtomicInteger threads = new AtomicInteger();
                    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(2, task -> {
                        Thread thread = new Thread(task, "ratelimiter-wait-" + threads.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    });
                    executor.setRemoveOnCancelPolicy(true);
                    scheduler = made = executor;
                }
            }
        }
        return made;
    }

    /** Stops the scheduler: an undeployed application leaves no thread behind. */
    @PreDestroy
    void stop() {
        ScheduledExecutorService made = scheduler;
        if (made != null) {
            made.shutdownNow();
        }
    }

    /**
     * One call's turn to wait for its first bucket: its place among the bucket's waiting calls, its deadline, and
     * the verdict the bucket gave it last ({@link #accept}, as a recorder of the call's verdicts).
     */
    final class Turn implements BiConsumer<Bucket, Verdict> {
        private final Bucket bucket;
        private final long deadline; // epoch milliseconds of the library's clock
        private AtomicInteger place; // null once released, or when there was none
        private Bucket decided; // the first bucket as decided (under the call's plan), and its last verdict
        private Verdict verdict;
        private long waitedMillis;
        private boolean interrupted;

        private Turn(Bucket bucket, AtomicInteger place, long deadline) {
            this.bucket = bucket;
            this.place = place;
            this.deadline = deadline;
        }

        /** Whether every place was taken: the call is refused at once ({@link #refusal()}). */
        boolean full() {
            return place == null && deadline == 0;
        }

        /**
         * The refusal of a call that found every place taken: the bucket's limit, nothing remaining, and its
         * max-wait to wait before trying again.
         */
        RateLimitExceededException refusal() {
            return new RateLimitExceededException(bucket, Verdict.denied(bucket.limit(), bucket.maxWait()));
        }

        /** The refusal of a call whose wait was interrupted: the bucket's limit, and its max-wait to wait. */
        RateLimitExceededException interrupted() {
            interrupted = true;
            return refusal();
        }

        /** Keeps the first bucket's verdict: the decision path records each bucket's, in order. */
        @Override
        public void accept(Bucket decided, Verdict verdict) {
            if (decided.name().equals(bucket.name())) {
                this.decided = decided;
                this.verdict = verdict;
            }
        }

        /**
         * How long the call waits after a decision: for an admitted call, its reservation's wait (0: none); for a
         * refusal by the bucket's own limits, its {@code resetAfter} if that ends by the deadline.
         *
         * @param refusal the decision's refusal, or {@code null} if it admitted the call
         * @return milliseconds, or -1 when the call does not wait: admitted without a reservation, or a refusal to
         *         return as it is
         */
        long pauseMillis(RateLimitException refusal) {
            if (refusal == null) {
                long wait = verdict == null ? 0 : Reservations.waitOf(decided, verdict).toMillis();
                return wait > 0 ? wait : -1;
            }
            if (!(refusal instanceof RateLimitExceededException) || !refusal.bucket().name().equals(bucket.name())
                    || refusal.verdict().isDenyListed() || place == null) {
                return -1;
            }
            long wait = refusal.verdict().resetAfter().toMillis();
            return clock.millis() + wait <= deadline ? Math.max(wait, 1) : -1;
        }

        /**
         * Gives the call's place back and counts how its wait ended, if it waited or was refused with a turn: a call
         * admitted without a wait counts nothing. Idempotent.
         *
         * @param refusal the call's last refusal, or {@code null} if it runs
         */
        void finish(RateLimitException refusal) {
            boolean held = place != null;
            release();
            WaitOutcome outcome = full() ? WaitOutcome.FULL
                    : interrupted ? WaitOutcome.INTERRUPTED
                    : refusal == null ? (waitedMillis > 0 ? WaitOutcome.ADMITTED : null)
                    : refusal instanceof RateLimitExceededException && refusal.bucket().name().equals(bucket.name())
                            && !refusal.verdict().isDenyListed() ? WaitOutcome.TIMED_OUT : null;
            if (outcome != null && (held || outcome == WaitOutcome.FULL)) {
                decider.waited(bucket, outcome, waitedMillis);
            }
        }

        /** Gives the call's place back; idempotent. */
        void release() {
            AtomicInteger held = place;
            if (held != null) {
                place = null;
                held.decrementAndGet();
            }
        }
    }
}
