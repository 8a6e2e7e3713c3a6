package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.spi.ErrorDescriptions;

import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The one place that knows whether the backend is {@code ok} or {@code degraded}: the circuit breaker reports
 * when it opens and closes (for the whole store, or for each part of a store whose parts fail on their own), the
 * store reports each failure. A change is logged once and handed to the listeners
 * (the CDI layer turns it into a {@code RateLimiterStateChanged} event); nothing is logged per request.
 */
public final class BackendMonitor {

    private static final System.Logger LOG = System.getLogger(BackendMonitor.class.getName());

    private final String backend;
    private final InstantSource clock;
    private final RateLimiterMetrics metrics;
    private final AtomicReference<BackendStatus> status;
    private final LongAdder errors = new LongAdder();
    private volatile String lastError;
    private final Set<String> failingParts = new TreeSet<>(); // guarded by this
    private boolean wholeStoreDegraded; // guarded by this
    private final List<Consumer<BackendStatus>> listeners = new CopyOnWriteArrayList<>();

    /**
     * @param backend the watched store's name ({@code ratelimiter.backend})
     * @param clock   for the {@code since} of each change
     * @param metrics told of every failure
     */
    public BackendMonitor(String backend, InstantSource clock, RateLimiterMetrics metrics) {
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
        update(() -> wholeStoreDegraded = true);
    }

    /** The breaker closed: the backend decides again. */
    public void recovered() {
        update(() -> wholeStoreDegraded = false);
    }

    /**
     * The breaker of one part of the store opened (a cluster master, by {@code host:port}): the state is
     * degraded, and the part is named in {@link BackendStatus#failingParts()}, until it recovers.
     */
    public void degraded(String part) {
        update(() -> failingParts.add(part));
    }

    /** The breaker of one part closed; the state is ok again once no part and not the whole store is failing. */
    public void recovered(String part) {
        update(() -> failingParts.remove(part));
    }

    private void update(Runnable change) {
        BackendStatus current;
        BackendStatus next;
        synchronized (this) {
            current = status.get();
            change.run();
            BackendState state = wholeStoreDegraded || !failingParts.isEmpty() ? BackendState.DEGRADED
                    : BackendState.OK;
            List<String> failing = List.copyOf(failingParts);
            if (state == current.state() && failing.equals(current.failingParts())) {
                return;
            }
            boolean newFailure = state == BackendState.DEGRADED && (current.state() == BackendState.OK
                    || !current.failingParts().containsAll(failing));
            next = new BackendStatus(backend, state, state == current.state() ? current.since() : clock.instant(),
                    state == BackendState.OK ? Optional.empty()
                            : newFailure ? Optional.ofNullable(lastError) : current.lastError(),
                    failing);
            status.set(next);
        }
        if (next.state() == current.state()) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter backend {0}: failing parts now {1} ({2})",
                    backend, next.failingParts(), next.lastError().orElse("no error recorded"));
            return; // still degraded: no state change for the listeners
        }
        if (next.state() == BackendState.DEGRADED) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter backend {0} is degraded ({1}{2}): buckets now "
                    + "follow their outage policy until the background probe succeeds", backend,
                    next.lastError().orElse("no error recorded"),
                    next.failingParts().isEmpty() ? "" : "; failing: " + String.join(", ", next.failingParts()));
        } else {
            LOG.log(System.Logger.Level.INFO, "Rate limiter backend {0} is ok again", backend);
        }
        for (Consumer<BackendStatus> listener : listeners) {
            try {
                listener.accept(next);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                // An Error too: it would reach the decision or the probe that reported the change, and the
                // listeners after this one would not hear of it
                LOG.log(System.Logger.Level.WARNING, "a listener of backend state changes failed", e);
            }
        }
    }
}
