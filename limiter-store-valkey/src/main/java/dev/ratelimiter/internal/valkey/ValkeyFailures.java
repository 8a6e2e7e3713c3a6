package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.StoreException;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Classifies a failed Valkey call by the server's error reply, looked for in the exception, its causes and what
 * it suppressed (a cluster call keeps each attempt's reply there), and makes it the SPI's exception.
 */
final class ValkeyFailures {

    /** Error-reply prefixes of a connection that reaches a server that is no longer the primary. */
    private static final List<String> RECONNECT = List.of("READONLY", "MASTERDOWN");
    /** Error-reply prefixes that persist until an operator acts. */
    private static final List<String> CONFIGURATION = List.of("NOAUTH", "WRONGPASS", "NOPERM", "OOM", "MISCONF",
            // NOPERM as Redis 7.0 words it for a command inside a script: the user lacks a command the script calls
            "ERR The user executing the script can't run this command");

    private ValkeyFailures() {
    }

    /**
     * The failure as the SPI's exception: classified, with what the server replied as its cause (a cluster
     * call's failure says only "No more cluster attempts left" and keeps the attempt's own failure, READONLY or a
     * refused connection, among its suppressed). A {@link FailureKind#RECONNECT} failure drops the pooled
     * connections first.
     *
     * @param client  the client the call went through; {@code null} if it could not be had
     * @param failure what the client threw
     */
    static StoreException failed(ValkeyClient client, RuntimeException failure) {
        FailureKind kind = classify(failure);
        if (client != null && kind == FailureKind.RECONNECT) {
            client.dropConnections();
        }
        Throwable[] attempts = failure.getSuppressed();
        Throwable reply = failure instanceof JedisClusterOperationException && attempts.length > 0
                ? attempts[attempts.length - 1] : failure;
        return new StoreException(kind, reply);
    }

    static FailureKind classify(Throwable failure) {
        Deque<Throwable> pending = new ArrayDeque<>(List.of(failure));
        Set<Throwable> seen = new HashSet<>();
        while (!pending.isEmpty()) {
            Throwable next = pending.pop();
            if (!seen.add(next)) {
                continue;
            }
            if (next instanceof JedisAccessControlException) {
                return FailureKind.CONFIGURATION;
            }
            if (next instanceof JedisDataException && next.getMessage() != null) {
                if (startsWithAny(next.getMessage(), RECONNECT)) {
                    return FailureKind.RECONNECT;
                }
                if (startsWithAny(next.getMessage(), CONFIGURATION)) {
                    return FailureKind.CONFIGURATION;
                }
            }
            if (next.getCause() != null) {
                pending.add(next.getCause());
            }
            pending.addAll(List.of(next.getSuppressed()));
        }
        return FailureKind.TRANSIENT;
    }

    private static boolean startsWithAny(String message, List<String> prefixes) {
        for (String prefix : prefixes) {
            if (message.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
