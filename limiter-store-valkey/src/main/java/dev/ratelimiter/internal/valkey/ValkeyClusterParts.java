package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreParts;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * A Valkey cluster's masters as the parts of the store the circuit breaker watches one by one: a key's part is
 * the master its slot maps to in the client's slot map, named {@code host:port}; a part's probe runs the
 * decision's script on that master, on a probe key of one of its slots ({@link ValkeyProbe#probeNode}).
 */
final class ValkeyClusterParts implements StoreParts {

    /** The part of every key while the client is not built (no seed node answered yet). */
    static final String SEED_NODES = "seed nodes";
    /** The part of a key whose slot no master serves. */
    static final String UNCOVERED = "uncovered slots";

    private final Supplier<Optional<ValkeyClient>> built;
    private final Supplier<ValkeyClient> client;
    private final KeyLayout keys;
    private final ValkeyProbe probe;

    /**
     * @param built  the client if it is built, without building it
     * @param client the client, built if need be (may throw)
     * @param keys   the store's keys, whose slot says a key's part
     * @param probe  runs the script as the breaker's probe
     */
    ValkeyClusterParts(Supplier<Optional<ValkeyClient>> built, Supplier<ValkeyClient> client, KeyLayout keys,
                       ValkeyProbe probe) {
        this.built = built;
        this.client = client;
        this.keys = keys;
        this.probe = probe;
    }

    @Override
    public String partOf(Bucket bucket, String key) {
        Optional<ValkeyClient> current = built.get();
        if (current.isEmpty()) {
            return SEED_NODES;
        }
        HostAndPort node = current.get().clusterNodeOf(JedisClusterCRC16.getSlot(keys.counterKey(bucket, key)));
        return node == null ? UNCOVERED : node.toString();
    }

    /**
     * Re-reads the slot map first: while the part's breaker is open no decision goes there to meet a MOVED reply,
     * and its slots may have moved to a promoted replica, which is then a part of its own. A master left with
     * no slot passes.
     */
    @Override
    public void probe(String part) throws StoreException {
        if (part.equals(SEED_NODES)) {
            probe.probe(); // builds the client, then one script through the slot map
            return;
        }
        ValkeyClient cluster = client.get();
        cluster.dropConnections();
        if (part.equals(UNCOVERED)) {
            return; // keys of uncovered slots find a part again once the map names their master
        }
        probe.probeNode(cluster, HostAndPort.from(part));
    }
}
