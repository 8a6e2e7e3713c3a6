package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.spi.Sweepable;
import dev.ratelimiter.spi.StoreConfig;
import dev.ratelimiter.spi.StoreContext;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.BooleanSupplier;

/**
 * A {@link StoreContext} outside a server (tests, benchmarks, and the part of the CDI layer's context that is not
 * the server's): no beans, no JNDI, no transactions, no managed executor; sweeps on threads of the given factory or
 * on daemon threads. Closing it stops the sweeps.
 */
public class PlainStoreContext implements StoreContext, AutoCloseable {

    private final StoreConfig config;
    private final InstantSource clock;
    private final Optional<ThreadFactory> threads;
    private final List<PeriodicSweeper> sweepers = new ArrayList<>(); // guarded by this

    /**
     * @param config    the store's configuration subtree
     * @param clock     the library's clock
     * @param threads   the server's managed thread factory, if it has one; else sweeps run on a daemon thread each
     */
    public PlainStoreContext(StoreConfig config, InstantSource clock, Optional<ThreadFactory> threads) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.threads = Objects.requireNonNull(threads, "threads");
    }

    @Override
    public StoreConfig config() {
        return config;
    }

    @Override
    public InstantSource clock() {
        return clock;
    }

    @Override
    public <T> Optional<T> bean(Class<T> type, Optional<String> name) {
        return Optional.empty();
    }

    @Override
    public <T> Optional<T> lookup(String jndiName, Class<T> type) {
        throw new IllegalStateException("no naming service outside a server: cannot look up '" + jndiName + "'");
    }

    @Override
    public Optional<BooleanSupplier> transactionActive() {
        return Optional.empty();
    }

    @Override
    public Optional<ExecutorService> managedExecutor() {
        return Optional.empty();
    }

    @Override
    public synchronized void sweep(Sweepable sweepable, Duration interval) {
        sweepers.add(new PeriodicSweeper(sweepable, interval, threads));
    }

    /** Stops every sweep; one under way finishes. */
    @Override
    public synchronized void close() {
        sweepers.forEach(PeriodicSweeper::close);
        sweepers.clear();
    }
}
