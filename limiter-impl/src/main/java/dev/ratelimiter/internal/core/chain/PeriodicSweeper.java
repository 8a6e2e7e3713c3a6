package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.spi.Sweepable;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Sweeps ended counters on a fixed delay, until closed, on a scheduler of its own: one thread, from the server's
 * managed thread factory when one is given, else a daemon thread.
 *
 * <p>Not on the server's managed scheduler: that one outlives the application, and Payara's keeps a cancelled task
 * queued until its time, with the context it was submitted in, the application's class loader among it. An
 * undeployed application would stay in memory for up to a sweep interval (docs/stores.md#redeploys). Closing this
 * scheduler drops its queue and ends its thread.
 */
public final class PeriodicSweeper implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(PeriodicSweeper.class.getName());

    private final ScheduledThreadPoolExecutor executor;

    /** Starts sweeping on a daemon thread of its own; the first sweep runs one {@code interval} from now. */
    public PeriodicSweeper(Sweepable target, Duration interval) {
        this(target, interval, Optional.empty());
    }

    /**
     * Starts sweeping: the first sweep runs one {@code interval} from now.
     *
     * @param target   what to sweep
     * @param interval the delay between the end of one sweep and the start of the next, positive
     * @param threads  the server's managed thread factory, if it has one; else a daemon thread is started
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public PeriodicSweeper(Sweepable target, Duration interval, Optional<ThreadFactory> threads) {
        Objects.requireNonNull(target, "target");
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("sweep interval must be positive, was " + interval);
        }
        this.executor = new ScheduledThreadPoolExecutor(1, threads.orElse(runnable -> {
            Thread thread = new Thread(runnable, "ratelimiter-sweeper");
            thread.setDaemon(true);
            return thread;
        }));
        executor.setRemoveOnCancelPolicy(true);
        long millis = interval.toMillis();
        executor.scheduleWithFixedDelay(() -> sweep(target), millis, millis, TimeUnit.MILLISECONDS);
    }

    private static void sweep(Sweepable target) {
        try {
            long swept = target.sweep();
            LOG.log(System.Logger.Level.DEBUG, "swept {0} ended counters", swept);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            // Anything else, an Error included: a scheduled task that throws is never run again
            // (ScheduledExecutorService), so no sweep after it would run
            LOG.log(System.Logger.Level.WARNING, "sweep failed; the next one runs on schedule", e);
        }
    }

    /** Stops the schedule and ends the thread; a sweep under way is interrupted. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
