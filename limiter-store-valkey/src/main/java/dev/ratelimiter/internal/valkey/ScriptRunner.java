package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.StoreException;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * Runs one of the store's scripts ({@link ValkeyScript}) once, by EVALSHA. Only an explicit NOSCRIPT reply (after a
 * restart or SCRIPT FLUSH) sends it once more by EVAL, which also caches it, and only a cluster's MOVED or ASK reply
 * (the script did not run) sends it once more: to the slot's new node, or after ASKING to the node importing the
 * slot. A timeout is never retried, since the increment may have happened. Every client error becomes a
 * {@link StoreException} classified by {@link ValkeyFailures}; a {@link FailureKind#RECONNECT} failure (READONLY from
 * a demoted primary) first drops the pooled connections, so the next calls find the current primary.
 */
final class ScriptRunner {

    private static final CommandObjects COMMANDS = new CommandObjects();

    private final Supplier<ValkeyClient> clients;

    /**
     * @param clients the client (standalone, Sentinel or Cluster); it may throw while the store cannot be reached,
     *                which counts as a failure of the call
     */
    ScriptRunner(Supplier<ValkeyClient> clients) {
        this.clients = clients;
    }

    /**
     * Runs {@code script} once on {@code keyCount} keys then its arguments, all in {@code parameters}; follows a
     * cluster's MOVED or ASK reply once, to the node it names, since either means the script did not run.
     *
     * @return the script's reply
     * @throws StoreException classified by {@link ValkeyFailures}
     */
    Object run(ValkeyScript script, byte[][] parameters, int keyCount) throws StoreException {
        ValkeyClient client = null;
        try {
            client = clients.get();
            try {
                return run(client.commands(), script, parameters, keyCount);
            } catch (JedisClusterOperationException e) {
                Optional<JedisRedirectionException> redirect = onlyRedirect(e);
                if (redirect.isEmpty()) {
                    throw e;
                }
                // Sent to the node the reply names, not through the slot map: while the map is being re-read
                // (another thread may be at it) it can still name the old node.
                try (Connection node = client.clusterNode(redirect.get().getTargetNode())) {
                    return runOn(node, redirect.get() instanceof JedisAskDataException, script, parameters,
                            keyCount);
                }
            }
        } catch (RuntimeException e) {
            throw ValkeyFailures.failed(client, e);
        }
    }

    /** By bytes: the string forms encode every argument again and decode the reply through streams. */
    private static Object run(UnifiedJedis client, ValkeyScript script, byte[][] parameters, int keyCount) {
        try {
            return client.evalsha(script.shaBytes(), keyCount, parameters);
        } catch (JedisNoScriptException e) {
            return client.eval(script.bytes(), keyCount, parameters);
        }
    }

    /**
     * The script on one cluster node; after an ASK reply each command is preceded by ASKING, which lets the node
     * importing the slot run the next command (one only) on it.
     *
     * @return the script's reply
     */
    static Object runOn(Connection node, boolean asking, ValkeyScript script, byte[][] parameters, int keyCount) {
        if (asking) {
            node.executeCommand(Protocol.Command.ASKING);
        }
        try {
            return node.executeCommand(COMMANDS.evalsha(script.shaBytes(), keyCount, parameters));
        } catch (JedisNoScriptException e) {
            if (asking) {
                node.executeCommand(Protocol.Command.ASKING);
            }
            return node.executeCommand(COMMANDS.eval(script.bytes(), keyCount, parameters));
        }
    }

    /** The one redirection a cluster call met, if redirections are all it met (one attempt: one reply). */
    private static Optional<JedisRedirectionException> onlyRedirect(JedisClusterOperationException failure) {
        Throwable[] suppressed = failure.getSuppressed();
        if (suppressed.length == 0) {
            return Optional.empty();
        }
        for (Throwable attempt : suppressed) {
            if (!(attempt instanceof JedisRedirectionException)) {
                return Optional.empty();
            }
        }
        return Optional.of((JedisRedirectionException) suppressed[suppressed.length - 1]);
    }
}
