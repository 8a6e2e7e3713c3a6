package dev.ratelimiter.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.core.RateLimiterMetrics;
import dev.ratelimiter.core.WindowVerdicts;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Fixed windows in Valkey or Redis: one Lua script ({@code fixed-window.lua}), one round trip per decision over
 * every window of the bucket. The script reads each window's count and PTTL and writes (INCRBY, or SET with PX for
 * a window that opens) only when every window has room for the cost, atomically; the window's remaining time is
 * the key's PTTL, so the server's clock times every replica's windows.
 *
 * <p>The script runs by EVALSHA; only an explicit NOSCRIPT reply (after a restart or SCRIPT FLUSH) sends it once
 * more by EVAL, which also caches it, and only a cluster's MOVED or ASK reply (the script did not run) sends it
 * once more: to the slot's new node, or after ASKING to the node importing the slot. A timeout is never retried,
 * since the increment may have happened. Any client error is reported to the {@link BackendMonitor} and answered
 * {@link Verdict.Outcome#UNAVAILABLE}: this class never throws out of {@link #consume}, {@link #reset} or
 * {@link #probe}'s callers. A {@link FailureKind#RECONNECT} failure (READONLY from a demoted primary) drops the
 * pooled connections, so the next calls find the current primary.
 *
 * <p>Keys: {@code <prefix>{<bucket>:<hashed key>}} for a bucket of one window (the layout of earlier versions,
 * so counters survive an upgrade); {@code <prefix>{<bucket>:<hashed key>}:<window>} for each window of a bucket
 * of several ({@code :1s}, {@code :1h}: {@link Bucket.Limit#windowName()}). One key per window rather than one
 * hash with a field per window, because a window ends by its key's expiry (PEXPIRE, PTTL), which Valkey and Redis
 * keep per key, not per hash field on every supported version. The braces make {@code {<bucket>:<hashed key>}}
 * the Redis Cluster hash tag of every window's key, so one key's windows share a slot and one script decides
 * them on one node.
 */
final class ValkeyRateLimiter implements RateLimiter {

    static final String SCRIPT = loadScript();
    static final String SCRIPT_SHA = sha1(SCRIPT);
    private static final byte[] SCRIPT_BYTES = SCRIPT.getBytes(StandardCharsets.UTF_8);
    private static final byte[] SCRIPT_SHA_BYTES = SCRIPT_SHA.getBytes(StandardCharsets.US_ASCII);

    private static final CommandObjects COMMANDS = new CommandObjects();
    private static final byte[][] PROBE_ARGUMENTS = {{'1'}, Long.toString(Bucket.MAX_LIMIT).getBytes(StandardCharsets.US_ASCII),
            "1000".getBytes(StandardCharsets.US_ASCII)};

    private final Supplier<ValkeyClient> clients;
    private final String keyPrefix;
    private final BackendMonitor monitor;
    private final RateLimiterMetrics metrics;
    private final ScriptArguments arguments;

    /**
     * @param clients   the pooled client (standalone, Sentinel or Cluster), owned by the caller; it may throw
     *                  while the store cannot be reached, which counts as a failure of the call
     * @param keyPrefix prepended to every key
     * @param monitor   told of every failure
     * @param metrics   told how long each call took
     */
    ValkeyRateLimiter(Supplier<ValkeyClient> clients, String keyPrefix, BackendMonitor monitor,
                      RateLimiterMetrics metrics) {
        this.clients = Objects.requireNonNull(clients, "clients");
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.arguments = new ScriptArguments(keyPrefix);
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        long start = System.nanoTime();
        try {
            ScriptArguments.OfBucket ofBucket = arguments.of(bucket);
            return verdict(bucket, cost, decide(ofBucket.parameters(key, cost), ofBucket.keyCount()));
        } catch (RuntimeException e) {
            monitor.failure(reply(e));
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        } finally {
            metrics.backendCall(Backend.VALKEY, System.nanoTime() - start);
        }
    }

    @Override
    public void reset(Bucket bucket, String key) {
        ValkeyClient client = null;
        try {
            client = clients.get();
            client.commands().del(counterKeys(bucket, key));
        } catch (RuntimeException e) {
            failed(client, e);
            monitor.failure(reply(e)); // the window simply runs out
        }
    }

    /**
     * Runs the script once on {@code counters}; follows a cluster's MOVED or ASK reply once, to the node it names,
     * since either means the script did not run. Timeouts are never retried: their increment may have happened.
     *
     * @return the script's reply
     */
    private Object decide(byte[][] parameters, int keyCount) {
        ValkeyClient client = clients.get();
        try {
            try {
                return run(client.commands(), parameters, keyCount);
            } catch (JedisClusterOperationException e) {
                Optional<JedisRedirectionException> redirect = onlyRedirect(e);
                if (redirect.isEmpty()) {
                    throw e;
                }
                // Sent to the node the reply names, not through the slot map: while the map is being re-read
                // (another thread may be at it) it can still name the old node.
                try (Connection node = client.clusterNode(redirect.get().getTargetNode())) {
                    return runOn(node, redirect.get() instanceof JedisAskDataException, parameters, keyCount);
                }
            }
        } catch (RuntimeException e) {
            failed(client, e);
            throw e;
        }
    }

    /**
     * What the server replied, for {@code lastError}: a cluster call's failure says only "No more cluster attempts
     * left" and keeps the attempt's own failure (READONLY, a refused connection) among its suppressed.
     */
    private static Throwable reply(RuntimeException failure) {
        Throwable[] attempts = failure.getSuppressed();
        return failure instanceof JedisClusterOperationException && attempts.length > 0
                ? attempts[attempts.length - 1] : failure;
    }

    private static void failed(ValkeyClient client, RuntimeException failure) {
        if (client != null && ValkeyFailures.classify(failure) == FailureKind.RECONNECT) {
            client.dropConnections();
        }
    }

    /** By bytes: the string forms encode every argument again and decode the reply through streams. */
    private static Object run(UnifiedJedis client, byte[][] parameters, int keyCount) {
        try {
            return client.evalsha(SCRIPT_SHA_BYTES, keyCount, parameters);
        } catch (JedisNoScriptException e) {
            return client.eval(SCRIPT_BYTES, keyCount, parameters);
        }
    }

    /** The probe's parameters: its key, then cost 1 against the largest limit, in a 1 s window. */
    private static byte[][] probeParameters(String key) {
        byte[][] parameters = new byte[1 + PROBE_ARGUMENTS.length][];
        parameters[0] = key.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(PROBE_ARGUMENTS, 0, parameters, 1, PROBE_ARGUMENTS.length);
        return parameters;
    }

    /**
     * The script on one cluster node; after an ASK reply each command is preceded by ASKING, which lets the node
     * importing the slot run the next command (one only) on it.
     */
    private static Object runOn(Connection node, boolean asking, byte[][] parameters, int keyCount) {
        if (asking) {
            node.executeCommand(Protocol.Command.ASKING);
        }
        try {
            return node.executeCommand(COMMANDS.evalsha(SCRIPT_SHA_BYTES, keyCount, parameters));
        } catch (JedisNoScriptException e) {
            if (asking) {
                node.executeCommand(Protocol.Command.ASKING);
            }
            return node.executeCommand(COMMANDS.eval(SCRIPT_BYTES, keyCount, parameters));
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

    /**
     * The circuit breaker's probe: the decision's own write path, the script on the key {@code <prefix>{probe}}
     * with a 1 s window, so a server that answers reads but refuses writes (a demoted primary, a full server)
     * keeps the breaker open (README: "Reliability: faults and the tests that prove them").
     *
     * @throws RuntimeException if the script does not run in time
     */
    void probe() {
        decide(probeParameters(keyPrefix + "{probe}"), 1);
    }

    /** The probe of one cluster master: the script on {@code probeKey}, one of its slots, sent to it directly. */
    void probeNode(ValkeyClient client, HostAndPort node, String probeKey) {
        try (Connection connection = client.clusterNode(node)) {
            runOn(connection, false, probeParameters(probeKey), 1);
        }
    }

    /** {@code <prefix>{<bucket>:<hashed key>}}: the counter of a one-window bucket, the hash tag of every bucket. */
    String counterKey(Bucket bucket, String key) {
        return keyPrefix + '{' + bucket.name() + ':' + key + '}';
    }

    /** Each window's counter, in the bucket's order (see the class comment for the layout). */
    String[] counterKeys(Bucket bucket, String key) {
        String tagged = counterKey(bucket, key);
        if (!bucket.hasSeveralWindows()) {
            return new String[] {tagged};
        }
        String[] keys = new String[bucket.limits().size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = tagged + ':' + bucket.limits().get(i).windowName();
        }
        return keys;
    }

    /** The script's arguments: the cost, then each window's limit and length in milliseconds. */
    static String[] arguments(Bucket bucket, long cost) {
        List<Bucket.Limit> limits = bucket.limits();
        String[] arguments = new String[1 + 2 * limits.size()];
        arguments[0] = Long.toString(cost);
        for (int i = 0; i < limits.size(); i++) {
            arguments[1 + 2 * i] = Long.toString(limits.get(i).limit());
            arguments[2 + 2 * i] = Long.toString(limits.get(i).window().toMillis());
        }
        return arguments;
    }

    private static Verdict verdict(Bucket bucket, long cost, Object reply) {
        List<?> values = (List<?>) reply;
        boolean allowed = (Long) values.get(0) == 1L;
        List<Bucket.Limit> limits = bucket.limits();
        if (limits.size() == 1) {
            return WindowVerdicts.single(bucket, allowed, bucket.limit() - (Long) values.get(1), (Long) values.get(2));
        }
        long[] remaining = new long[limits.size()];
        long[] resetMillis = new long[limits.size()];
        for (int i = 0; i < limits.size(); i++) {
            remaining[i] = limits.get(i).limit() - (Long) values.get(1 + 2 * i);
            resetMillis[i] = (Long) values.get(2 + 2 * i);
        }
        return WindowVerdicts.of(bucket, cost, allowed, remaining, resetMillis);
    }

    private static String loadScript() {
        try (InputStream in = ValkeyRateLimiter.class.getResourceAsStream("fixed-window.lua")) {
            if (in == null) {
                throw new IllegalStateException("fixed-window.lua is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
