package dev.ratelimiter.valkey;

import dev.ratelimiter.core.ValkeySettings;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Builds the Jedis client (Jedis 7) for a deployment form: {@link JedisPooled} for a standalone server,
 * {@link JedisSentineled} behind Sentinels (it follows failovers by itself), {@link JedisCluster} for a cluster.
 * Every form gets the same deadline for connect, read and pool wait, and the cluster client makes one attempt
 * only, so a script that timed out is never replayed by the client.
 */
// Jedis 7.5 marks these classes and builder methods deprecated in favour of Jedis 8's RedisClient family; this
// version stays on Jedis 7 (README: "The Valkey / Redis backend"), whose classes are still supported there.
@SuppressWarnings("deprecation")
public final class ValkeyClients {

    private ValkeyClients() {
    }

    /**
     * @throws IllegalArgumentException if the URL or trust store is unusable; the message names the property
     */
    public static UnifiedJedis create(ValkeySettings settings) {
        URI uri = URI.create(settings.url());
        boolean tls = JedisURIHelper.isRedisSSLScheme(uri);
        int millis = (int) Math.min(Integer.MAX_VALUE, settings.timeout().toMillis());
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis)
                .socketTimeoutMillis(millis)
                .clientName("jakarta-rate-limiter")
                .ssl(tls);
        settings.user().or(() -> java.util.Optional.ofNullable(JedisURIHelper.getUser(uri))).ifPresent(client::user);
        settings.password().or(() -> java.util.Optional.ofNullable(JedisURIHelper.getPassword(uri)))
                .ifPresent(client::password);
        if (JedisURIHelper.hasDbIndex(uri)) {
            client.database(JedisURIHelper.getDBIndex(uri));
        }
        if (tls) {
            secure(client, settings);
        }
        JedisClientConfig config = client.build();
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(settings.poolSize());
        pool.setMaxIdle(settings.poolSize());
        pool.setMinIdle(Math.min(2, settings.poolSize()));
        pool.setBlockWhenExhausted(true);
        pool.setMaxWait(settings.timeout());
        pool.setTestOnBorrow(false);
        pool.setTestWhileIdle(true);
        pool.setTimeBetweenEvictionRuns(Duration.ofSeconds(30));
        switch (settings.mode()) {
            case SENTINEL:
                // The Sentinels' own connections: the same deadline and TLS, their own credentials if any.
                DefaultJedisClientConfig.Builder sentinel = DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(millis).socketTimeoutMillis(millis).ssl(tls);
                settings.sentinelUser().ifPresent(sentinel::user);
                settings.sentinelPassword().ifPresent(sentinel::password);
                if (tls) {
                    secure(sentinel, settings);
                }
                return new JedisSentineled(settings.masterName().orElseThrow(), config, pool, nodes(settings),
                        sentinel.build());
            case CLUSTER:
                return new JedisCluster(nodes(settings), config, 1, pool);
            case STANDALONE:
            default:
                return new JedisPooled(JedisURIHelper.getHostAndPort(uri), config, pool);
        }
    }

    /** TLS with host-name verification, and the configured trust store if any. */
    private static void secure(DefaultJedisClientConfig.Builder client, ValkeySettings settings) {
        SSLParameters parameters = new SSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // check the certificate names the host
        client.sslParameters(parameters);
        settings.trustStore().ifPresent(path -> client.sslSocketFactory(
                sslContext(Path.of(path), settings.trustStorePassword().orElse("")).getSocketFactory()));
    }

    private static Set<HostAndPort> nodes(ValkeySettings settings) {
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        for (String node : settings.nodes()) {
            nodes.add(HostAndPort.from(node));
        }
        return nodes;
    }

    private static SSLContext sslContext(Path trustStore, String password) {
        try (InputStream in = Files.newInputStream(trustStore)) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(in, password.toCharArray());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("ratelimiter.valkey.trust-store: cannot load " + trustStore + ": "
                    + e.getMessage(), e);
        }
    }
}
