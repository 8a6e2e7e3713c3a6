package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Replicas of one application sharing one store, for the hot-key section ({@link HotKeySection}): each a decision
 * path of its own ({@link LibraryPaths.Decision}: its own client or pool, batching, breaker, refusals kept in memory
 * and, in lease mode, its own quota leases and their sweep), as separate servers have. Closing gives back what each
 * replica's leases left unused, so {@link #storeCalls()} read after {@link #close()} counts those give-backs too.
 */
final class HotKeyReplicas implements AutoCloseable {

    /** Builds one replica. */
    @FunctionalInterface
    interface Factory {

        /**
         * @param leases the quota leases by bucket name; empty for the exact mode, where every decision asks the store
         */
        LibraryPaths.Decision replica(Map<String, QuotaLeaseSettings> leases) throws Exception;
    }

    private final List<LibraryPaths.Decision> replicas;

    private HotKeyReplicas(List<LibraryPaths.Decision> replicas) {
        this.replicas = replicas;
    }

    /**
     * Builds {@code count} replicas by {@code factory}, each with {@code leases}, side by side as servers start: a
     * PostgreSQL store's start runs its checks in round trips of its own, and 16 one after another took seconds of
     * a smoke run.
     */
    static HotKeyReplicas start(int count, Factory factory, Map<String, QuotaLeaseSettings> leases)
            throws Exception {
        List<Callable<LibraryPaths.Decision>> builds = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            builds.add(() -> factory.replica(leases));
        }
        SideBySide<LibraryPaths.Decision> built = SideBySide.run(builds);
        HotKeyReplicas started = new HotKeyReplicas(built.done());
        if (built.failure() != null) {
            started.close(); // the replicas built beside the failure hold pools and threads
            throw built.failure();
        }
        return started;
    }

    int size() {
        return replicas.size();
    }

    /** The replica a caller numbered {@code caller} calls through: callers are split evenly between replicas. */
    LibraryPaths.Decision forCaller(int caller) {
        return replicas.get(caller % replicas.size());
    }

    /**
     * One decision on each replica, on a key of its own of {@code bucket}, so that a measured run's first calls do not
     * open the pools or load the script while the others count.
     */
    void warm(Bucket bucket) {
        for (LibraryPaths.Decision replica : replicas) {
            replica.decide(bucket, "warm-" + UUID.randomUUID(), KeyNormalization.NONE);
        }
    }

    /** Calls that reached the stores over every replica so far: each decision asked, each lease taken or given back. */
    long storeCalls() {
        return replicas.stream().mapToLong(LibraryPaths.Decision::storeCalls).sum();
    }

    /** Round trips of the stores' {@code consume} and {@code consumeEach} over every replica so far (no give-back). */
    long roundTrips() {
        return replicas.stream().mapToLong(LibraryPaths.Decision::roundTrips).sum();
    }

    /** Closes every replica side by side, as {@link #start} builds them; each gives its leases back first. */
    @Override
    public void close() throws Exception {
        List<Callable<LibraryPaths.Decision>> closes = new ArrayList<>(replicas.size());
        for (LibraryPaths.Decision replica : replicas) {
            closes.add(() -> {
                replica.close();
                return replica;
            });
        }
        Exception failure = SideBySide.run(closes).failure();
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Tasks run each on a thread of its own, all ended.
     *
     * @param done    the results of the tasks that succeeded, in order
     * @param failure the first task's failure, the others' suppressed in it; null if none failed
     */
    private record SideBySide<T>(List<T> done, Exception failure) {

        static <T> SideBySide<T> run(List<Callable<T>> tasks) throws InterruptedException {
            ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, tasks.size()));
            List<Future<T>> running;
            try {
                running = threads.invokeAll(tasks);
            } finally {
                threads.shutdown();
            }
            List<T> done = new ArrayList<>(tasks.size());
            Exception failure = null;
            for (Future<T> task : running) {
                try {
                    done.add(task.get());
                } catch (ExecutionException e) {
                    Exception cause = e.getCause() instanceof Exception exception ? exception : e;
                    if (failure == null) {
                        failure = cause;
                    } else {
                        failure.addSuppressed(cause);
                    }
                }
            }
            return new SideBySide<>(done, failure);
        }
    }
}
