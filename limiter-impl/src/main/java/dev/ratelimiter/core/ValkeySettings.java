package dev.ratelimiter.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How to reach Valkey or Redis ({@code ratelimiter.valkey.*}).
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
        Optional<String> sentinelPassword) {

    /** The deployment forms Jedis connects to. */
    public enum Mode {
        STANDALONE, SENTINEL, CLUSTER
    }

    public ValkeySettings {
        nodes = List.copyOf(nodes);
    }

    /** Settings for Sentinels that need no credentials of their own. */
    public ValkeySettings(Mode mode, String url, List<String> nodes, Optional<String> masterName,
                          Optional<String> user, Optional<String> password, Duration timeout, String keyPrefix,
                          int poolSize, Optional<String> trustStore, Optional<String> trustStorePassword) {
        this(mode, url, nodes, masterName, user, password, timeout, keyPrefix, poolSize, trustStore,
                trustStorePassword, Optional.empty(), Optional.empty());
    }

    /** Hides the password. */
    @Override
    public String toString() {
        return "ValkeySettings[mode=" + mode + ", nodes=" + nodes.size() + ", timeout=" + timeout + ", keyPrefix="
                + keyPrefix + ", poolSize=" + poolSize + "]";
    }
}
