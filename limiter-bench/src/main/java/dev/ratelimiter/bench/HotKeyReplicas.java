package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

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

    /** Builds {@code count} replicas by {@code factory}, each with {@code leases}. */
    static HotKeyReplicas start(int count, Factory factory, Map<String, QuotaLeaseSettings> leases)
            throws Exception {
        HotKeyReplicas started = new HotKeyReplicas(new ArrayList<>(count));
        try {
            for (int i = 0; i < count; i++) {
                started.replicas.add(factory.replica(leases));
            }
        } catch (Exception | Error e) {
            started.close(); // the replicas built before the failure hold pools and threads
            throw e;
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

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (LibraryPaths.Decision replica : replicas) {
            try {
                replica.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
