package dev.ratelimiter.valkey;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.RateLimiterMetrics;
import dev.ratelimiter.core.StoreProbe;
import dev.ratelimiter.core.ValkeySettings;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Valkey backend as the CDI layer sees it: a limiter, a probe and something to close. Its public signatures
 * name no Jedis type, so the classes that use it load without Jedis on the class path when another backend is
 * configured.
 */
public final class ValkeyBackend implements AutoCloseable {

    private final ValkeySettings settings;
    private final ValkeyRateLimiter limiter;
    private volatile UnifiedJedis jedis;
    private volatile boolean closed;

    private ValkeyBackend(ValkeySettings settings, BackendMonitor monitor, RateLimiterMetrics metrics) {
        this.settings = settings;
        this.limiter = new ValkeyRateLimiter(this::client, settings.keyPrefix(), monitor, metrics);
    }

    /**
     * Prepares the backend without connecting: the client is built at the first call, and built again by a later
     * call if that failed (the Sentinel and Cluster clients connect when built), so a store that is down at
     * startup leaves the application deployed and degraded rather than failed.
     */
    public static ValkeyBackend start(ValkeySettings settings, BackendMonitor monitor, RateLimiterMetrics metrics) {
        return new ValkeyBackend(settings, monitor, metrics);
    }

    private UnifiedJedis client() {
        UnifiedJedis current = jedis;
        if (current != null) {
            return current;
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the rate limiter is stopping");
            }
            if (jedis == null) {
                jedis = ValkeyClients.create(settings);
            }
            return jedis;
        }
    }

    /** The store's limiter (answers {@code UNAVAILABLE} for its failures). */
    public RateLimiter limiter() {
        return limiter;
    }

    /** The breaker's probe. */
    public StoreProbe probe() {
        return limiter::probe;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (jedis != null) {
            jedis.close();
        }
    }
}
