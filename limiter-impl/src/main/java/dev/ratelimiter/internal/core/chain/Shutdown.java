package dev.ratelimiter.internal.core.chain;

import java.util.ArrayList;
import java.util.List;

/**
 * What the limiter opened at startup, closed in one order when the application stops: first what calls a store on
 * its own (the circuit breaker's probe, sweeps), then the store's client, so no background call meets a closed pool
 * (docs/architecture.md#the-store-spi). A failure to close one resource is logged and the others still close.
 */
public final class Shutdown implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Shutdown.class.getName());

    private final List<AutoCloseable> resources = new ArrayList<>(); // guarded by this

    /**
     * Closes {@code resource} before everything registered so far: for what calls a store on its own.
     *
     * @param resource closed once, by {@link #close()}
     */
    public synchronized void first(AutoCloseable resource) {
        resources.add(0, resource);
    }

    /**
     * Closes {@code resource} after everything registered so far.
     *
     * @param resource closed once, by {@link #close()}
     */
    public synchronized void then(AutoCloseable resource) {
        resources.add(resource);
    }

    /** The resources in the order {@link #close()} closes them. */
    public synchronized List<AutoCloseable> order() {
        return List.copyOf(resources);
    }

    /** Closes every resource in order, once; a later call does nothing. Never throws. */
    @Override
    public synchronized void close() {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "closing " + resource.getClass().getSimpleName() + " failed", e);
            }
        }
        resources.clear();
    }
}
