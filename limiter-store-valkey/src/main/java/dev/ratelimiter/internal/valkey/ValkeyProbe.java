package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.StoreException;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.charset.StandardCharsets;

/**
 * The circuit breaker's probe: the decision's own write path, {@code decide.lua} on the key {@code <prefix>{probe}}
 * with a 1 s window, so a server that answers reads but refuses writes (a demoted primary, a full server) keeps the
 * breaker open (docs/operations.md#when-a-shared-store-fails). Then a token bucket on {@code <prefix>{probe}:tokens}
 * and a sliding window on {@code <prefix>{probe}:sliding}, so the probe runs the commands of every algorithm and an
 * ACL user refused one of them keeps the store degraded instead of failing each request of its buckets. Three calls
 * of one item each, not one of three: a server that requires a password closes an unauthenticated connection at a
 * command of more than 10 parts, which would hide its NOAUTH reply.
 */
final class ValkeyProbe {

    /** The largest limit, as the probe's limit and capacity: the probe is always allowed. */
    private static final byte[] PROBE_LIMIT = Long.toString(Bucket.MAX_LIMIT).getBytes(StandardCharsets.US_ASCII);
    /** A fixed-window item of the probe after its key: cost 1, one window, the largest limit, 1 s. */
    private static final byte[][] PROBE_FIXED_WINDOW = {{'1'}, {'1'}, PROBE_LIMIT,
            "1000".getBytes(StandardCharsets.US_ASCII)};
    /**
     * A token-bucket item of the probe after its key: cost 1, one window, the largest capacity, a token per
     * microsecond (its key lives a millisecond).
     */
    private static final byte[][] PROBE_TOKEN_BUCKET = {{'1'}, {'-', '1'}, PROBE_LIMIT, {'1'}};
    /**
     * A sliding-window item of the probe after its key: cost 1, one window
     * ({@link ScriptArgumentEncoder#SLIDING_WINDOWS} + 1), the largest limit, 1 s (its key lives 2 s).
     */
    private static final byte[][] PROBE_SLIDING_WINDOW = {{'1'},
            Long.toString(ScriptArgumentEncoder.SLIDING_WINDOWS + 1).getBytes(StandardCharsets.US_ASCII), PROBE_LIMIT,
            "1000".getBytes(StandardCharsets.US_ASCII)};
    /** Probe keys tried for a slot of the master: CRC16 spreads them evenly, so a master of 1 slot is found. */
    private static final int PROBE_KEYS_TRIED = 200_000;

    private final ScriptRunner runner;
    private final String keyPrefix;

    /**
     * @param runner    runs the script through the client's own routing
     * @param keyPrefix the store's key prefix, for the probe keys
     */
    ValkeyProbe(ScriptRunner runner, String keyPrefix) {
        this.runner = runner;
        this.keyPrefix = keyPrefix;
    }

    /**
     * Probes the store through the client (in a cluster, through its slot map).
     *
     * @throws StoreException if the script does not run in time
     */
    void probe() throws StoreException {
        String key = keyPrefix + "{probe}";
        runner.run(ValkeyScript.DECIDE, probeParameters(key, PROBE_FIXED_WINDOW), 1);
        runner.run(ValkeyScript.DECIDE, probeParameters(key + KeyLayout.TOKENS, PROBE_TOKEN_BUCKET), 1);
        runner.run(ValkeyScript.DECIDE, probeParameters(key + KeyLayout.SLIDING, PROBE_SLIDING_WINDOW), 1);
    }

    /**
     * The probe of one cluster master, as {@link #probe}, sent to it directly: the script on a probe key of one of
     * its slots in the client's slot map, and on that key's token-bucket and sliding-window keys in the same slot.
     * A master the map gives no slot passes.
     */
    void probeNode(ValkeyClient cluster, HostAndPort node) {
        for (int i = 0; i < PROBE_KEYS_TRIED; i++) {
            String probeKey = keyPrefix + "{probe-" + i + "}";
            if (node.equals(cluster.clusterNodeOf(JedisClusterCRC16.getSlot(probeKey)))) {
                probeNode(cluster, node, probeKey);
                return;
            }
        }
    }

    private static void probeNode(ValkeyClient client, HostAndPort node, String probeKey) {
        try (Connection connection = client.clusterNode(node)) {
            ScriptRunner.runOn(connection, false, ValkeyScript.DECIDE, probeParameters(probeKey, PROBE_FIXED_WINDOW),
                    1);
            ScriptRunner.runOn(connection, false, ValkeyScript.DECIDE,
                    probeParameters(probeKey + KeyLayout.TOKENS, PROBE_TOKEN_BUCKET), 1);
            ScriptRunner.runOn(connection, false, ValkeyScript.DECIDE,
                    probeParameters(probeKey + KeyLayout.SLIDING, PROBE_SLIDING_WINDOW), 1);
        }
    }

    /** One probe call's parameters: its key, then its item's arguments. */
    private static byte[][] probeParameters(String key, byte[][] item) {
        byte[][] parameters = new byte[1 + item.length][];
        parameters[0] = key.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(item, 0, parameters, 1, item.length);
        return parameters;
    }
}
