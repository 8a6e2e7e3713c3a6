package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.RateLimitStoreProvider;
import dev.ratelimiter.spi.StoreConfig;
import dev.ratelimiter.spi.StoreContext;

import java.util.EnumSet;
import java.util.Set;

/**
 * The Valkey / Redis store, {@code ratelimiter.backend=valkey} (docs/stores.md#the-valkey--redis-backend):
 * standalone, behind Sentinels or a cluster, configured by {@code ratelimiter.valkey.*} ({@link ValkeySettings}).
 * Found by {@link java.util.ServiceLoader}; its public types name no Jedis type, so the provider loads without
 * Jedis on the class path when another store is configured.
 */
public final class ValkeyStoreProvider implements RateLimitStoreProvider {

    /** For {@link java.util.ServiceLoader}. */
    public ValkeyStoreProvider() {
    }

    @Override
    public String name() {
        return "valkey";
    }

    @Override
    public Set<String> propertyNames() {
        return ValkeySettings.PROPERTIES;
    }

    /**
     * Fixed windows, token buckets and sliding windows, all decided by the store's one script, so items of any
     * algorithm share a round trip (docs/stores.md#the-valkey--redis-backend); and concurrency limits, whose permits
     * a script of their own keeps, leases timed by the server's clock (docs/stores.md#permits).
     */
    @Override
    public Set<Algorithm> algorithms() {
        return EnumSet.of(Algorithm.FIXED_WINDOW, Algorithm.TOKEN_BUCKET,
                Algorithm.SLIDING_WINDOW, Algorithm.CONCURRENCY);
    }

    /**
     * True: the store gives counts back by a script of its own, in one round trip
     * (docs/stores.md#the-valkey--redis-backend).
     */
    @Override
    public boolean refunds() {
        return true;
    }

    @Override
    public boolean debits() {
        return true;
    }

    /** A calendar window's length per call: {@code CalendarPeriods.windowMillis}. */
    @Override
    public boolean calendarWindows() {
        return true;
    }

    /**
     * Reads {@code ratelimiter.valkey.*} and builds the store: a standalone client at once (it connects at its
     * first call), a Sentinel or Cluster client at the first call; a server that is down leaves the application
     * deployed and degraded, a policy that may evict counters is warned about once connected.
     *
     * @param context the subtree {@code ratelimiter.valkey.*}; nothing else of the server is needed
     * @return the store, which owns its client and closes it
     * @throws dev.ratelimiter.spi.ConfigurationException naming each unusable property, among them a malformed
     *                                                     {@code url} or a {@code trust-store} that does not open
     */
    @Override
    public RateLimitStore create(StoreContext context) {
        StoreConfig config = context.config();
        ValkeySettings settings = ValkeySettings.read(config);
        config.check();
        return ValkeyStore.start(settings, context.clock());
    }
}
