package dev.ratelimiter.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.RateLimiterMetrics;

/**
 * The Valkey store's own script and key layout, as the library's jar has them, for the benchmark's bare client
 * loop and {@code redis-benchmark}: read from the classes, never copied, so a change of the script or the layout
 * is measured everywhere at once. In the store's package because both are package-private.
 */
public final class ValkeyLayout {

    private final ValkeyRateLimiter limiter;

    /** @param keyPrefix the store's key prefix, as {@code ratelimiter.valkey.key-prefix} sets it */
    public ValkeyLayout(String keyPrefix) {
        this.limiter = new ValkeyRateLimiter(() -> {
            throw new UnsupportedOperationException("layout only");
        }, keyPrefix, new BackendMonitor(dev.ratelimiter.core.Backend.VALKEY, java.time.InstantSource.system(),
                RateLimiterMetrics.NONE), RateLimiterMetrics.NONE);
    }

    /**
     * A Jedis client built as the store builds its own (client and pool settings), for the bare loops and
     * Bucket4j; close it when done.
     */
    public static redis.clients.jedis.UnifiedJedis client(dev.ratelimiter.core.ValkeySettings settings) {
        return ValkeyClients.create(settings).commands();
    }

    /** The text of {@code fixed-window.lua}. */
    public static String script() {
        return ValkeyRateLimiter.SCRIPT;
    }

    /** The SHA-1 the store calls the script by (EVALSHA). */
    public static String scriptSha() {
        return ValkeyRateLimiter.SCRIPT_SHA;
    }

    /** The Valkey key the store counts {@code key} of {@code bucket} under. */
    public String counterKey(Bucket bucket, String key) {
        return limiter.counterKey(bucket, key);
    }

    /**
     * The script's arguments besides the key, as the store passes them for one attempt: the cost (1), then the
     * window's limit and its length in milliseconds.
     */
    public static String[] arguments(Bucket bucket) {
        return ValkeyRateLimiter.arguments(bucket, 1);
    }
}
