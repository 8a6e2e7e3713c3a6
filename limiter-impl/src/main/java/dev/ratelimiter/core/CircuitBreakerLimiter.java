package dev.ratelimiter.core;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A circuit breaker in front of a shared store's limiter. Closed, it passes every call to the store and counts
 * consecutive {@link Verdict.Outcome#UNAVAILABLE} verdicts; at {@link BreakerSettings#failureThreshold()} it
 * opens. Open, it does not call the store at all: every attempt is answered {@code UNAVAILABLE} at once, with
 * the time until the next probe as {@code resetAfter} (so a fail-closed bucket's {@code Retry-After} is the
 * remaining back-off, at least 1 s), and the outage policy decides. So at most the few requests that meet the
 * first failures wait for a deadline.
 *
 * <p>While open, a background thread (never a user request) probes the store: first after
 * {@link BreakerSettings#initialBackoff()}, then doubling after each failure up to
 * {@link BreakerSettings#maxBackoff()}; after {@link BreakerSettings#successThreshold()} successes in a row it
 * closes the breaker. Openings and closings are reported to the {@link BackendMonitor}.
 */
public final class CircuitBreakerLimiter implements RateLimiter, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(CircuitBreakerLimiter.class.getName());

    private final RateLimiter store;
    private final StoreProbe probe;
    private final BackendMonitor monitor;
    private final InstantSource clock;
    private final BreakerSettings settings;
    private final ScheduledExecutorService prober;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicBoolean open = new AtomicBoolean();
    private volatile long nextProbeAt;
    private volatile Duration backoff;
    private int probeSuccesses; // only the prober thread touches it

    /**
     * @param store    the store's limiter, which answers {@code UNAVAILABLE} for its failures
     * @param probe    one cheap round trip to the store
     * @param monitor  told when the breaker opens and closes
     * @param clock    for the remaining back-off
     * @param settings thresholds and back-off
     */
    public CircuitBreakerLimiter(RateLimiter store, StoreProbe probe, BackendMonitor monitor, InstantSource clock,
                                 BreakerSettings settings) {
        this.store = Objects.requireNonNull(store, "store");
        this.probe = Objects.requireNonNull(probe, "probe");
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.backoff = settings.initialBackoff();
        this.prober = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ratelimiter-breaker-probe");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public Verdict consume(Bucket bucket, String key) {
        if (open.get()) {
            return Verdict.unavailable(bucket.limit(), untilNextProbe());
        }
        Verdict verdict = store.consume(bucket, key);
        if (verdict.outcome() == Verdict.Outcome.UNAVAILABLE) {
            if (consecutiveFailures.incrementAndGet() >= settings.failureThreshold()) {
                trip();
            }
        } else if (consecutiveFailures.get() != 0) {
            consecutiveFailures.set(0); // read first: a shared write on every call would contend
        }
        return verdict;
    }

    @Override
    public void reset(Bucket bucket, String key) {
        if (!open.get()) {
            store.reset(bucket, key);
        }
    }

    /** {@code true} while the store is not being called. */
    public boolean isOpen() {
        return open.get();
    }

    /** Stops the probe; the breaker stays as it is. */
    @Override
    public void close() {
        prober.shutdownNow();
    }

    private void trip() {
        if (!open.compareAndSet(false, true)) {
            return;
        }
        backoff = settings.initialBackoff();
        monitor.degraded();
        scheduleProbe(backoff);
    }

    private void scheduleProbe(Duration delay) {
        nextProbeAt = clock.millis() + delay.toMillis();
        try {
            prober.schedule(this::runProbe, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closed: the application is stopping
        }
    }

    private void runProbe() {
        try {
            probe.probe();
            probeSuccesses++;
            if (probeSuccesses >= settings.successThreshold()) {
                probeSuccesses = 0;
                consecutiveFailures.set(0);
                open.set(false);
                monitor.recovered();
                return;
            }
            backoff = settings.initialBackoff();
        } catch (Exception e) {
            probeSuccesses = 0;
            monitor.failure(e);
            Duration doubled = backoff.multipliedBy(2);
            backoff = doubled.compareTo(settings.maxBackoff()) > 0 ? settings.maxBackoff() : doubled;
            LOG.log(System.Logger.Level.DEBUG, "probe failed; next in {0}", backoff);
        }
        scheduleProbe(backoff);
    }

    private Duration untilNextProbe() {
        // Bounded by the longest back-off: the probe runs on a timer of elapsed time, so a clock stepped back
        // must not make the answer (a fail-closed bucket's Retry-After) longer than the wait really is.
        long millis = Math.min(nextProbeAt - clock.millis(), settings.maxBackoff().toMillis());
        return Duration.ofMillis(Math.max(1_000, millis));
    }
}
