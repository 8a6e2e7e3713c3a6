package dev.ratelimiter.valkey;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Warns when the server may evict counters: every policy but {@code noeviction} does, since every counter has an
 * expiry ({@code volatile-*} evicts such keys, {@code allkeys-*} any key), and an evicted counter silently opens
 * its window anew. Asks with {@code CONFIG GET maxmemory-policy}; a server that is down, or a user not allowed
 * CONFIG, is not checked (README: "Reliability: faults and the tests that prove them").
 */
final class EvictionPolicyCheck {

    private static final System.Logger LOG = System.getLogger(EvictionPolicyCheck.class.getName());

    /** Checks each server the client reaches now: the primary, or every cluster node it knows. */
    void warnIfEvicting(ValkeyClient client) {
        for (String policy : policies(client)) {
            if (!"noeviction".equals(policy)) {
                LOG.log(System.Logger.Level.WARNING, "Rate limiter: the Valkey server's maxmemory-policy is {0}: "
                        + "when it reaches maxmemory it may evict counters, which resets their windows. Use "
                        + "maxmemory-policy noeviction (decisions then fail while it is full, and the outage "
                        + "policies answer).", policy);
                return;
            }
        }
    }

    private static List<String> policies(ValkeyClient client) {
        List<String> policies = new ArrayList<>();
        try {
            if (client.clusterNodes().isEmpty()) {
                policies.add(policy(client.commands()));
            }
            for (ConnectionPool node : client.clusterNodes()) {
                try (Connection connection = node.getResource()) {
                    policies.add(policy(connection.executeCommand(
                            new CommandArguments(Protocol.Command.CONFIG).add("GET")
                                    .add("maxmemory-policy"))));
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "maxmemory-policy not checked", e);
        }
        return policies;
    }

    private static String policy(UnifiedJedis commands) {
        return policy(commands.sendCommand(Protocol.Command.CONFIG, "GET", "maxmemory-policy"));
    }

    /** The reply is the pair {@code [maxmemory-policy, <value>]}, as bytes. */
    private static String policy(Object reply) {
        List<?> pair = (List<?>) reply;
        return new String((byte[]) pair.get(1), StandardCharsets.UTF_8);
    }
}
