package dev.ratelimiter.valkey;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.RateLimiterMetrics;
import dev.ratelimiter.core.StoreProbe;
import dev.ratelimiter.core.ValkeySettings;

/**
 * The Valkey backend as the CDI layer sees it: a limiter, a probe and something to close. Its public signatures
 * name no Jedis type, so the classes that use it load without Jedis on the class path when another backend is
 * configured.
 */
public final class ValkeyBackend implements AutoCloseable {

    private final ValkeyClients clients;
    private final EvictionPolicyCheck evictionPolicy = new EvictionPolicyCheck();
    private final ValkeyRateLimiter limiter;
    private volatile ValkeyClient client;
    private boolean closed; // guarded by this

    private ValkeyBackend(ValkeyClients clients, String keyPrefix, BackendMonitor monitor,
                          RateLimiterMetrics metrics) {
        this.clients = clients;
        this.limiter = new ValkeyRateLimiter(this::client, keyPrefix, monitor, metrics);
    }

    /**
     * Checks the settings and builds the client: a standalone client at once (it connects at its first call),
     * a Sentinel or Cluster client at the first call and again by a later call if that failed (those connect
     * when built). So a store that is down at startup leaves the application deployed and degraded, while a bad
     * URL or trust store fails the deployment. Where the server is up and lets the client read its
     * {@code maxmemory-policy}, a policy that may evict counters is warned about once the client is built.
     *
     * @throws dev.ratelimiter.core.ConfigurationException naming {@code ratelimiter.valkey.url},
     *                                                     {@code .trust-store} or {@code .trust-store-password}
     */
    public static ValkeyBackend start(ValkeySettings settings, BackendMonitor monitor, RateLimiterMetrics metrics) {
        ValkeyBackend backend = new ValkeyBackend(ValkeyClients.of(settings), settings.keyPrefix(), monitor,
                metrics);
        if (!backend.clients.connectsWhenBuilt()) {
            backend.client();
        }
        return backend;
    }

    private ValkeyClient client() {
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

    /** The store's limiter (answers {@code UNAVAILABLE} for its failures). */
    public RateLimiter limiter() {
        return limiter;
    }

    /** The breaker's probe: the decision's script on a probe key (see {@link ValkeyRateLimiter#probe()}). */
    public StoreProbe probe() {
        return limiter::probe;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (client != null) {
            client.close();
        }
    }
}
