package dev.ratelimiter.internal.valkey;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Warns when the server may evict counters: every policy but {@code noeviction} does, since every counter has an
 * expiry ({@code volatile-*} evicts such keys, {@code allkeys-*} any key), and an evicted counter silently opens
 * its window anew. Reads {@code maxmemory_policy} from {@code INFO memory} (not CONFIG GET, which would also
 * show an ACL user the server's passwords); a server that is down, or a user not allowed INFO, is not checked
 * (docs/operations.md#valkey-faults-and-the-tests-that-prove-them).
 */
final class EvictionPolicyCheck {

    private static final System.Logger LOG = System.getLogger(EvictionPolicyCheck.class.getName());

    /** Checks each server the client reaches now: the primary, or every cluster node it knows. */
    void warnIfEvicting(ValkeyClient client) {
        for (String policy : policies(client)) {
            if (!"noeviction".equals(policy)) {
                // No apostrophe in the text: MessageFormat would take it for a quote and not fill in {0}.
                LOG.log(System.Logger.Level.WARNING, "Rate limiter: the Valkey server has maxmemory-policy {0}: "
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
                policies.add(policy(client.commands().sendCommand(Protocol.Command.INFO, "memory")));
            }
            for (ConnectionPool node : client.clusterNodes()) {
                try (Connection connection = node.getResource()) {
                    policies.add(policy(connection.executeCommand(
                            new CommandArguments(Protocol.Command.INFO).add("memory"))));
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "maxmemory-policy not checked", e);
        }
        return policies;
    }

    /** The {@code maxmemory_policy:<value>} line of the reply. */
    private static String policy(Object info) {
        String text = new String((byte[]) info, StandardCharsets.UTF_8);
        for (String line : text.split("\r?\n")) {
            if (line.startsWith("maxmemory_policy:")) {
                return line.substring("maxmemory_policy:".length()).strip();
            }
        }
        return "noeviction"; // a server that does not say
    }
}
