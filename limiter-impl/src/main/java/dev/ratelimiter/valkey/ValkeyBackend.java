package dev.ratelimiter.valkey;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.BreakerSettings;
import dev.ratelimiter.core.DenyCacheSettings;
import dev.ratelimiter.core.OutageListener;
import dev.ratelimiter.core.RateLimiterMetrics;
import dev.ratelimiter.core.SharedStoreChain;
import dev.ratelimiter.spi.StoreParts;
import dev.ratelimiter.core.StoreProbe;
import dev.ratelimiter.core.ValkeySettings;

import java.time.InstantSource;
import java.util.Optional;

/**
 * The Valkey backend as the CDI layer sees it: a limiter, a probe and something to close. Its public signatures
 * name no Jedis type, so the classes that use it load without Jedis on the class path when another backend is
 * configured.
 */
public final class ValkeyBackend implements AutoCloseable {

    private final ValkeyClients clients;
    private final EvictionPolicyCheck evictionPolicy = new EvictionPolicyCheck();
    private final ValkeyRateLimiter limiter;
    private final StoreParts parts; // null unless cluster
    private volatile ValkeyClient client;
    private boolean closed; // guarded by this

    private ValkeyBackend(ValkeyClients clients, String keyPrefix, BackendMonitor monitor,
                          RateLimiterMetrics metrics) {
        this.clients = clients;
        this.limiter = new ValkeyRateLimiter(this::client, keyPrefix, monitor, metrics);
        this.parts = clients.cluster()
                ? new ValkeyClusterParts(() -> Optional.ofNullable(client), this::client, limiter, keyPrefix)
                : null;
    }

    /**
     * Checks the settings and builds the client: a standalone client at once (it connects at its first call),
     * a Sentinel or Cluster client at the first call and again by a later call if that failed (those connect
     * when built). So a store that is down at startup leaves the application deployed and degraded, while a bad
     * URL or trust store fails the deployment. Where the server is up and lets the client read its
     * {@code maxmemory-policy}, a policy that may evict counters is warned about once the client is built.
     *
     * @throws dev.ratelimiter.spi.ConfigurationException naming {@code ratelimiter.valkey.url},
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

    /**
     * The breaker's probe of the whole store: the decision's script on a probe key (see
     * {@link ValkeyRateLimiter#probe()}).
     */
    public StoreProbe probe() {
        return limiter::probe;
    }

    /**
     * In cluster mode, the masters as parts the breaker watches one by one (a master down sends only its own keys
     * to the outage policy); empty otherwise.
     */
    public Optional<StoreParts> parts() {
        return Optional.ofNullable(parts);
    }

    /**
     * The decorators around this store ({@link SharedStoreChain}): one circuit breaker, or in cluster mode one per
     * master ({@link #parts()}).
     *
     * @param monitor  the monitor this backend was started with
     * @param clock    for the breaker's back-off
     * @param fallback the per-process limiter for {@code FALLBACK} buckets
     * @param outages  told of every attempt an outage policy answered
     * @param breaker  each breaker's thresholds and back-offs
     * @param refusals how long refusals are answered from memory
     * @param metrics  told of each refusal answered from memory
     */
    public SharedStoreChain chain(BackendMonitor monitor, InstantSource clock, RateLimiter fallback,
                                  OutageListener outages, BreakerSettings breaker, DenyCacheSettings refusals,
                                  RateLimiterMetrics metrics) {
        return parts == null
                ? SharedStoreChain.of(limiter, probe(), monitor, clock, fallback, outages, breaker, refusals, metrics)
                : SharedStoreChain.of(limiter, parts, monitor, clock, fallback, outages, breaker, refusals, metrics);
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (client != null) {
            client.close();
        }
    }
}
