package dev.ratelimiter.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The smoke run's one PostgreSQL cluster, started on a thread of its own from the run's first second: its
 * {@code initdb} takes seconds of a smoke that has 30, and the sections before the first that needs it mostly wait
 * (the memory section, for the collector). Closing stops the cluster once it has started, taken or not.
 */
final class StartingCluster implements AutoCloseable {

    private final CompletableFuture<PostgresCluster> start;

    /** @param wanted false: no cluster, {@link #get()} is empty */
    StartingCluster(boolean wanted) {
        start = wanted ? CompletableFuture.supplyAsync(StartingCluster::startCluster,
                task -> new Thread(task, "bench-postgres-start").start())
                : CompletableFuture.completedFuture(null);
    }

    private static PostgresCluster startCluster() {
        try {
            return PostgresCluster.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting PostgreSQL", e);
        }
    }

    /**
     * The cluster, once started.
     *
     * @throws Exception what its start threw
     */
    Optional<PostgresCluster> get() throws Exception {
        try {
            return Optional.ofNullable(start.get());
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    @Override
    public void close() throws Exception {
        // A start that failed has nothing to stop, and get() has reported it to the run already.
        PostgresCluster cluster = start.handle((started, failure) -> started).get();
        if (cluster != null) {
            cluster.close();
        }
    }
}
