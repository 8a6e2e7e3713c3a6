package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.spi.StoreConfig;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * How to reach Valkey or Redis ({@code ratelimiter.valkey.*}; docs/reference.md), read by
 * {@link #read} when {@code ratelimiter.backend=valkey}.
 *
 * @param mode               {@code standalone}, {@code sentinel} or {@code cluster}
 * @param url                standalone: {@code redis://[user[:password]@]host[:port][/db]}, or {@code rediss://}
 *                           for TLS; sentinel and cluster: only its scheme, user and password are used
 * @param nodes              sentinel: the Sentinels' {@code host:port}; cluster: seed nodes' {@code host:port}
 * @param masterName         sentinel: the monitored master's name
 * @param user               ACL user, overriding the URL's
 * @param password           password, overriding the URL's
 * @param timeout            connect, read and pool-wait deadline of every call
 * @param keyPrefix          prepended to every key: {@code <prefix>{<bucket>:<hash>}}
 * @param poolSize           connections per node, at least 1
 * @param trustStore         TLS: a PKCS12 or JKS file of trusted certificates, instead of the JVM's
 * @param trustStorePassword TLS: its password
 * @param sentinelUser       sentinel: the Sentinels' own ACL user, if they require one
 * @param sentinelPassword   sentinel: the Sentinels' own password, if they require one
 * @param batching           whether the decisions that wait for a connection share round trips, one pipeline each
 *                           (docs/stores.md#batching)
 */
public record ValkeySettings(
        Mode mode,
        String url,
        List<String> nodes,
        Optional<String> masterName,
        Optional<String> user,
        Optional<String> password,
        Duration timeout,
        String keyPrefix,
        int poolSize,
        Optional<String> trustStore,
        Optional<String> trustStorePassword,
        Optional<String> sentinelUser,
        Optional<String> sentinelPassword,
        boolean batching) {

    /** Every property {@link #read} reads, relative to {@code ratelimiter.valkey.}. */
    public static final Set<String> PROPERTIES = Set.of("mode", "url", "nodes", "master-name", "user", "password",
            "timeout", "key-prefix", "pool-size", "trust-store", "trust-store-password", "sentinel-user",
            "sentinel-password", "batching");

    /** Deadlines of a call: a millisecond (the finest Jedis takes) to ten minutes. */
    private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
    private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    /** The deployment forms Jedis connects to. */
    public enum Mode {
        /** One server (or a proxy in front of several). */
        STANDALONE,
        /** A primary and replicas behind Sentinels, which name the current primary. */
        SENTINEL,
        /** A Redis Cluster: slots spread over several masters. */
        CLUSTER
    }

    public ValkeySettings {
        nodes = List.copyOf(nodes);
    }

    /**
     * Reads and checks {@code ratelimiter.valkey.*}: unset properties take their defaults (standalone,
     * {@code redis://127.0.0.1:6379}, 100 ms, prefix {@code rl:}, 32 connections per node); each unusable value is
     * recorded on {@code config} naming its property, and the default is used in its place. The caller calls
     * {@link StoreConfig#check()}. The URL's parts and the trust store are checked further when the client is
     * prepared ({@link ValkeyStoreProvider#create}).
     *
     * @param config the subtree {@code ratelimiter.valkey.*}
     * @return the settings, to use only if {@code config.check()} passes
     */
    public static ValkeySettings read(StoreConfig config) {
        String modeText = config.string("mode").orElse("standalone");
        Mode mode = Mode.STANDALONE;
        try {
            mode = Mode.valueOf(modeText.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            config.problem("mode", "'" + modeText + "' is not a mode; use standalone, sentinel or cluster");
        }
        String url = config.string("url").orElse("redis://127.0.0.1:6379");
        if (!url.startsWith("redis://") && !url.startsWith("rediss://")) {
            config.problem("url", "must start with redis:// or rediss:// (TLS)");
        }
        List<String> nodes = Arrays.stream(config.string("nodes").orElse("").split(","))
                .map(String::strip)
                .filter(node -> !node.isEmpty())
                .toList();
        Optional<String> masterName = config.string("master-name");
        if (mode != Mode.STANDALONE && nodes.isEmpty()) {
            config.problem("nodes", modeText + " mode needs host:port of "
                    + (mode == Mode.SENTINEL ? "the Sentinels" : "one or more cluster nodes"));
        }
        if (mode == Mode.SENTINEL && masterName.isEmpty()) {
            config.problem("master-name", "sentinel mode needs the monitored master's name");
        }
        for (String node : nodes) {
            int colon = node.lastIndexOf(':');
            if (colon <= 0 || !isPort(node.substring(colon + 1))) {
                config.problem("nodes", "'" + node + "' is not host:port");
            }
        }
        Duration timeout = config.duration("timeout", Duration.ofMillis(100), MIN_TIMEOUT, MAX_TIMEOUT);
        String keyPrefix = config.string("key-prefix").orElse("rl:");
        if (keyPrefix.contains("{") || keyPrefix.contains("}")) {
            config.problem("key-prefix", "'" + keyPrefix + "' must not contain { or }, which would change the "
                    + "key's cluster hash slot");
        }
        int poolSize = (int) config.number("pool-size", 32, 1, 1_024);
        Optional<String> trustStore = config.string("trust-store");
        trustStore.filter(path -> !readableFile(path))
                .ifPresent(path -> config.problem("trust-store", "'" + path + "' is not a readable file"));
        return new ValkeySettings(mode, url, nodes, masterName, config.string("user"), config.string("password"),
                timeout, keyPrefix, poolSize, trustStore, config.string("trust-store-password"),
                config.string("sentinel-user"), config.string("sentinel-password"), config.bool("batching", true));
    }

    private static boolean readableFile(String path) {
        try {
            return Files.isReadable(Path.of(path));
        } catch (InvalidPathException e) {
            return false; // a NUL character, for one
        }
    }

    private static boolean isPort(String text) {
        try {
            int port = Integer.parseInt(text);
            return port > 0 && port < 65_536;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * Settings for Sentinels that need no credentials of their own; the parameters are the record's.
     *
     * @param mode               standalone, sentinel or cluster
     * @param url                the server's URL (see the record)
     * @param nodes              the Sentinels' or seed nodes' {@code host:port}
     * @param masterName         sentinel: the monitored master's name
     * @param user               ACL user, overriding the URL's
     * @param password           password, overriding the URL's
     * @param timeout            every call's deadline
     * @param keyPrefix          prepended to every key
     * @param poolSize           connections per node
     * @param trustStore         TLS: a trust store file
     * @param trustStorePassword TLS: its password
     */
    public ValkeySettings(Mode mode, String url, List<String> nodes, Optional<String> masterName,
                          Optional<String> user, Optional<String> password, Duration timeout, String keyPrefix,
                          int poolSize, Optional<String> trustStore, Optional<String> trustStorePassword) {
        this(mode, url, nodes, masterName, user, password, timeout, keyPrefix, poolSize, trustStore,
                trustStorePassword, Optional.empty(), Optional.empty(), true);
    }

    /**
     * These settings with batching on or off ({@code ratelimiter.valkey.batching}).
     *
     * @param on whether waiting decisions share round trips
     */
    public ValkeySettings withBatching(boolean on) {
        return new ValkeySettings(mode, url, nodes, masterName, user, password, timeout, keyPrefix, poolSize,
                trustStore, trustStorePassword, sentinelUser, sentinelPassword, on);
    }

    /** Hides the password. */
    @Override
    public String toString() {
        return "ValkeySettings[mode=" + mode + ", nodes=" + nodes.size() + ", timeout=" + timeout + ", keyPrefix="
                + keyPrefix + ", poolSize=" + poolSize + ", batching=" + batching + "]";
    }
}
