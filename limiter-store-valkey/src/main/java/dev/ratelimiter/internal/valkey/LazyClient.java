package dev.ratelimiter.internal.valkey;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * The client built at its first use and again by a later use if building failed (a Sentinel or Cluster client
 * connects when built), with the eviction-policy warning once it is built.
 */
final class LazyClient implements Supplier<ValkeyClient> {

    private final ValkeyClientFactory clients;
    private final EvictionPolicyCheck evictionPolicy = new EvictionPolicyCheck();
    private volatile ValkeyClient client;
    private boolean closed; // guarded by this

    LazyClient(ValkeyClientFactory clients) {
        this.clients = clients;
    }

    /**
     * @throws IllegalStateException once {@link #close} ran
     * @throws RuntimeException      as building the client throws (the server cannot be reached)
     */
    @Override
    public ValkeyClient get() {
        ValkeyClient current = client;
        if (current != null) {
            return current;
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the rate limiter is stopping");
            }
            if (client == null) {
                client = clients.connect();
                evictionPolicy.warnIfEvicting(client);
            }
            return client;
        }
    }

    /** The client if it is built, without building it. */
    Optional<ValkeyClient> built() {
        return Optional.ofNullable(client);
    }

    /** Closes the client if it is built; no later {@link #get} builds one. */
    synchronized void close() {
        closed = true;
        if (client != null) {
            client.close();
        }
    }
}
