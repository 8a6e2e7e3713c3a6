package dev.ratelimiter.core;

import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The one place that knows whether the backend is {@code ok} or {@code degraded}: the circuit breaker reports
 * when it opens and closes, the store reports each failure. A change is logged once and handed to the listeners
 * (the CDI layer turns it into a {@code RateLimiterStateChanged} event); nothing is logged per request.
 */
public final class BackendMonitor {

    private static final System.Logger LOG = System.getLogger(BackendMonitor.class.getName());

    private final Backend backend;
    private final InstantSource clock;
    private final RateLimiterMetrics metrics;
    private final AtomicReference<BackendStatus> status;
    private final LongAdder errors = new LongAdder();
    private volatile String lastError;
    private final List<Consumer<BackendStatus>> listeners = new CopyOnWriteArrayList<>();

    /**
     * @param backend the backend watched
     * @param clock   for the {@code since} of each change
     * @param metrics told of every failure
     */
    public BackendMonitor(Backend backend, InstantSource clock, RateLimiterMetrics metrics) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.status = new AtomicReference<>(new BackendStatus(backend, BackendState.OK, clock.instant(),
                Optional.empty()));
    }

    /** Registers a listener for state changes; called on the thread that caused the change. */
    public void onChange(Consumer<BackendStatus> listener) {
        listeners.add(listener);
    }

    /** The current status. */
    public BackendStatus status() {
        return status.get();
    }

    /** Backend calls that failed since start (timeouts, connection errors, error replies). */
    public long errors() {
        return errors.sum();
    }

    /**
     * A store call or probe failed; the description is sanitized (no host, user or password). While degraded it
     * becomes the status's {@code lastError}, so readiness names why the store is still out (a failover's first
     * errors are broken connections; what keeps it out may be the read-only sessions after them).
     */
    public void failure(Throwable failure) {
        errors.increment();
        metrics.backendError(backend);
        String description = ErrorDescriptions.describe(failure);
        lastError = description;
        BackendStatus current = status.get();
        if (current.state() == BackendState.DEGRADED && !current.lastError().equals(Optional.of(description))) {
            // Not a change of state: no log, no listener. A lost race leaves another failure's description.
            status.compareAndSet(current, new BackendStatus(backend, BackendState.DEGRADED, current.since(),
                    Optional.of(description)));
        }
    }

    /** The breaker opened: outage policies decide from now on. */
    public void degraded() {
        change(BackendState.DEGRADED, Optional.ofNullable(lastError));
    }

    /** The breaker closed: the backend decides again. */
    public void recovered() {
        change(BackendState.OK, Optional.empty());
    }

    private void change(BackendState state, Optional<String> error) {
        BackendStatus current = status.get();
        if (current.state() == state) {
            return;
        }
        BackendStatus next = new BackendStatus(backend, state, clock.instant(), error);
        if (!status.compareAndSet(current, next)) {
            return; // another thread made the same change
        }
        if (state == BackendState.DEGRADED) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter backend {0} is degraded ({1}): buckets now follow "
                    + "their outage policy until the background probe succeeds", backend.configName(),
                    error.orElse("no error recorded"));
        } else {
            LOG.log(System.Logger.Level.INFO, "Rate limiter backend {0} is ok again", backend.configName());
        }
        for (Consumer<BackendStatus> listener : listeners) {
            try {
                listener.accept(next);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "a listener of backend state changes failed", e);
            }
        }
    }
}
