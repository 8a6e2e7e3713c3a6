package dev.ratelimiter.internal.valkey;

import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.Pool;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A built Jedis client and the two things the limiter needs beyond its commands: dropping pooled connections
 * that reach a demoted primary, and a connection to one cluster node to follow an {@code ASK} reply.
 */
final class ValkeyClient implements AutoCloseable {

    private final UnifiedJedis commands;
    private final Pool<Connection> standalonePool; // null unless standalone
    private final ClusterConnectionProvider cluster; // null unless cluster

    private ValkeyClient(UnifiedJedis commands, Pool<Connection> standalonePool, ClusterConnectionProvider cluster) {
        this.commands = Objects.requireNonNull(commands, "commands");
        this.standalonePool = standalonePool;
        this.cluster = cluster;
    }

    static ValkeyClient standalone(redis.clients.jedis.JedisPooled jedis) {
        return new ValkeyClient(jedis, jedis.getPool(), null);
    }

    /** Behind Sentinels: the client follows the Sentinels' switch-master messages itself. */
    static ValkeyClient sentineled(UnifiedJedis jedis) {
        return new ValkeyClient(jedis, null, null);
    }

    static ValkeyClient cluster(UnifiedJedis jedis, ClusterConnectionProvider provider) {
        return new ValkeyClient(jedis, null, provider);
    }

    UnifiedJedis commands() {
        return commands;
    }

    /**
     * Drops the idle pooled connections (standalone), or re-reads the slot map (cluster), so that the next calls
     * connect anew. A connection in use when this runs is dropped by its own next failure.
     */
    void dropConnections() {
        if (standalonePool != null) {
            standalonePool.clear();
        } else if (cluster != null) {
            cluster.renewSlotCache();
        }
    }

    /** Whether this is a cluster's client, whose script calls may only touch keys of one slot. */
    boolean isCluster() {
        return cluster != null;
    }

    /** The pools of the cluster nodes the client knows; empty unless cluster. */
    Collection<ConnectionPool> clusterNodes() {
        return cluster == null ? List.of() : cluster.getNodes().values();
    }

    /** The master serving {@code slot} in the client's slot map; null if none does, or not a cluster. */
    HostAndPort clusterNodeOf(int slot) {
        return cluster == null ? null : cluster.getNode(slot);
    }

    /**
     * A pooled connection to one cluster node (close it to return it).
     *
     * @throws IllegalStateException if this is not a cluster client
     */
    Connection clusterNode(HostAndPort node) {
        if (cluster == null) {
            throw new IllegalStateException("ASK redirection from a server that is not a cluster node");
        }
        return cluster.getConnection(node);
    }

    @Override
    public void close() {
        commands.close();
    }
}
