package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.settings.PropertyTable;
import dev.ratelimiter.internal.core.verdict.Reservations;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Bounded waits (docs/guide.md#waiting-instead-of-refusing) for the first bucket of a {@code @RateLimited} method
 * whose {@link Bucket#maxWait()} is set. A call takes a turn ({@code WaitTurn}) before it is decided: at most
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

    @Inject
    EventLoopWarner eventLoops;

    private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();
    private final Set<CompletableFuture<Object>> pending = ConcurrentHashMap.newKeySet();
    // Timers only; decisions and the methods run on the workers, so a slow store never delays another wait's end
    private volatile ScheduledExecutorService scheduler;
    private volatile ExecutorService workers;
    private volatile boolean stopped;

    /**
     * A turn to wait for {@code bucket}, the first bucket of a call, if its calls wait.
     *
     * @param bucket  the call's first bucket, as decided
     * @param key     its raw key
     * @param cost    its cost: a check (0) reserves nothing and never waits
     * @param blocked whether the call must not wait on its thread (a plain method on a Vert.x event loop)
     * @return {@code null} when the call does not wait (no {@code max-wait}, a bucket in shadow mode, which never
     *         changes what a call does, cost 0, or a thread that must not wait); else a turn, which the caller must
     *         {@code WaitTurn.finish} (a turn that found every place taken refuses at once: {@code WaitTurn.full()})
     */
    WaitTurn turn(Bucket bucket, RawKey key, long cost, boolean blocked) {
        if (blocked || !waits(bucket, cost)) {
            return null;
        }
        int most = configuration.settings().maxWaiting().getOrDefault(bucket.name(),
                Integer.parseInt(PropertyTable.BUCKET_MAX_WAITING.defaultValue().orElseThrow()));
        AtomicInteger count = waiting.computeIfAbsent(bucket.name(), name -> new AtomicInteger());
        if (count.incrementAndGet() > most) {
            count.decrementAndGet();
            return new WaitTurn(bucket, key, cost, null, 0, clock, decider);
        }
        return new WaitTurn(bucket, key, cost, count, clock.millis() + bucket.maxWait().toMillis(), clock, decider);
    }

    /**
     * Whether a call of {@code bucket} of this cost waits for its turn: the bucket has {@code max-wait}, is not in
     * shadow mode (which never changes what a call does), and the call counts something (a check reserves nothing).
     */
    boolean waits(Bucket bucket, long cost) {
        return !bucket.maxWait().isZero() && cost > 0
                && !configuration.settings().shadowBuckets().contains(bucket.name());
    }

    /** Whether the current thread must not wait: a Vert.x event loop. */
    boolean onEventLoop() {
        return eventLoops.onEventLoop();
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
    RateLimitException onThisThread(WaitTurn turn, RateLimitException decided,
                                                Supplier<RateLimitException> decideAgain) {
        RateLimitException refusal = decided;
        for (long pause = turn.pauseMillis(refusal); pause >= 0; pause = turn.pauseMillis(refusal)) {
            if (!pause(turn, pause)) {
                return turn.interrupted(); // counted as interrupted, whichever wait it was
            }
            if (refusal == null) {
                return null; // the reservation's tokens are there
            }
            refusal = decideAgain.get();
        }
        return refusal != null ? refusal : turn.overdue;
    }

    /**
     * Parks the thread until the library's clock reads {@code millis} from now, in slices of at most
     * {@link #SLICE_NANOS}; false if it was interrupted (the flag kept). Parking, not a sleep that throws: a
     * spurious wake-up parks again.
     */
    boolean pause(WaitTurn turn, long millis) {
        long start = clock.millis();
        long until = start + millis;
        for (long left = millis; left > 0; left = until - clock.millis()) {
            LockSupport.parkNanos(Math.min(TimeUnit.MILLISECONDS.toNanos(left), SLICE_NANOS));
            if (Thread.currentThread().isInterrupted()) {
                turn.waitedMillis += Math.max(0, clock.millis() - start); // the time it did wait
                return false;
            }
        }
        turn.waitedMillis += millis;
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
     * @param pause       what {@code turn.pauseMillis(refusal)} answered for that decision, 0 or more (asked once per
     *                    decision: a second ask would take the decision's reservation for one made after a wait)
     * @param decideAgain decides the call again: its refusal, or {@code null} once admitted
     * @param proceed     runs the method: its {@code CompletionStage}
     * @return the stage of the method's result, or of the refusal
     */
    CompletionStage<Object> later(WaitTurn turn, RateLimitException refusal, long pause,
                                  Supplier<RateLimitException> decideAgain, Callable<CompletionStage<?>> proceed) {
        CompletableFuture<Object> result = pending(turn);
        step(turn, refusal, pause, decideAgain, proceed, result, Thread.currentThread().getContextClassLoader());
        return result;
    }

    /**
     * As {@link #later}, the first decision made on the library's scheduler too: for a {@code Uni}, subscribed on a
     * thread that may not wait for the store (a Vert.x event loop).
     */
    CompletionStage<Object> decidedLater(WaitTurn turn, Supplier<RateLimitException> decide,
                                         Callable<CompletionStage<?>> proceed) {
        CompletableFuture<Object> result = pending(turn);
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try {
            workers().execute(() -> {
                Thread thread = Thread.currentThread();
                ClassLoader own = thread.getContextClassLoader();
                thread.setContextClassLoader(loader);
                try {
                    RateLimitException refusal = decide.get();
                    step(turn, refusal, turn.pauseMillis(refusal), decide, proceed, result, loader);
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

    /** The stage of a call waiting without a thread: failed if the application stops first; its place freed at its end. */
    private CompletableFuture<Object> pending(WaitTurn turn) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        pending.add(result);
        result.whenComplete((value, failure) -> {
            pending.remove(result);
            turn.release();
        });
        return result;
    }

    /**
     * One decision's sequel: the refusal or reservation waited out on the scheduler, then the call decided again or
     * the method run; or the stage failed with a refusal the turn cannot wait out.
     *
     * @param pause what {@code turn.pauseMillis(refusal)} answered for this decision
     */
    private void step(WaitTurn turn, RateLimitException refusal, long pause, Supplier<RateLimitException> decideAgain,
                      Callable<CompletionStage<?>> proceed, CompletableFuture<Object> result, ClassLoader loader) {
        RateLimitException refused = refusal != null ? refusal : turn.overdue;
        if (pause < 0 && refused != null) {
            turn.finish(refused);
            result.completeExceptionally(refused);
            return;
        }
        turn.waitedMillis += Math.max(pause, 0);
        Runnable next = () -> {
            Thread thread = Thread.currentThread();
            ClassLoader own = thread.getContextClassLoader();
            thread.setContextClassLoader(loader);
            try {
                if (result.isDone()) { // cancelled while it waited: the method does not run
                    turn.finish(null);
                    return;
                }
                if (refusal != null) {
                    RateLimitException again = decideAgain.get();
                    step(turn, again, turn.pauseMillis(again), decideAgain, proceed, result, loader);
                } else {
                    turn.finish(null);
                    pending.remove(result); // running now: no longer a waiting call for stop() to fail
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
                scheduler().schedule(() -> runOnWorker(next, turn, result), pause, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) { // rejected: the application is stopping
                turn.release();
                result.completeExceptionally(e);
            }
        }
    }

    private void runOnWorker(Runnable next, WaitTurn turn, CompletableFuture<Object> result) {
        try {
            workers().execute(next);
        } catch (RuntimeException e) { // rejected: the application is stopping
            turn.finish(null);
            result.completeExceptionally(e);
        }
    }

    private synchronized ScheduledExecutorService scheduler() {
        if (stopped) {
            throw new RejectedExecutionException("the application stopped");
        }
        if (scheduler == null) {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads("ratelimiter-wait-timer"));
            executor.setRemoveOnCancelPolicy(true);
            scheduler = executor;
        }
        return scheduler;
    }

    private synchronized ExecutorService workers() {
        if (stopped) {
            throw new RejectedExecutionException("the application stopped");
        }
        if (workers == null) {
            // Threads as the calls waiting need, each idle one gone after a minute: at most max-waiting per bucket
            workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 1, TimeUnit.MINUTES, new SynchronousQueue<>(),
                    threads("ratelimiter-wait"));
        }
        return workers;
    }

    private static ThreadFactory threads(String name) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Stops the timers and the workers, and fails the calls still waiting without a thread: an undeployed
     * application leaves no thread behind, and no caller waiting for ever.
     */
    @PreDestroy
    synchronized void stop() {
        stopped = true;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        if (workers != null) {
            workers.shutdownNow();
        }
        for (CompletableFuture<Object> result : pending) {
            result.completeExceptionally(new CancellationException("the application stopped while the call waited"));
        }
    }
}
