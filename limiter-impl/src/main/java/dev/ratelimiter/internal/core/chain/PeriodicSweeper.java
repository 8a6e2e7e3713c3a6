package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Sweepable;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sweeps ended counters on a fixed delay, until closed: on the server's managed scheduler when one is given,
 * else on a daemon thread of its own. A failing sweep is logged and the schedule goes on.
 */
public final class PeriodicSweeper implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(PeriodicSweeper.class.getName());

    private final ScheduledExecutorService ownExecutor;
    private final ScheduledFuture<?> schedule;

    /** Starts sweeping on a daemon thread of its own; the first sweep runs one {@code interval} from now. */
    public PeriodicSweeper(Sweepable target, Duration interval) {
        this(target, interval, Optional.empty());
    }

    /**
     * Starts sweeping: the first sweep runs one {@code interval} from now.
     *
     * @param target   what to sweep
     * @param interval the delay between the end of one sweep and the start of the next, positive
     * @param managed  the server's managed scheduler, if it has one (it is not shut down by {@link #close()})
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public PeriodicSweeper(Sweepable target, Duration interval, Optional<ScheduledExecutorService> managed) {
        Objects.requireNonNull(target, "target");
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("sweep interval must be positive, was " + interval);
        }
        this.ownExecutor = managed.isPresent() ? null : Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ratelimiter-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        long millis = interval.toMillis();
        this.schedule = managed.orElse(ownExecutor)
                .scheduleWithFixedDelay(() -> sweep(target), millis, millis, TimeUnit.MILLISECONDS);
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

    /** Stops the schedule; a sweep under way finishes. */
    @Override
    public void close() {
        schedule.cancel(false);
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
        }
    }
}
