package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.spi.ConfigurationException;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisURIHelper;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Builds the Jedis client (Jedis 7) for a deployment form: {@link JedisPooled} for a standalone server,
 * {@link JedisSentineled} behind Sentinels (it follows failovers by itself), {@link JedisCluster} for a cluster.
 * Every form gets the same deadline for connect, read and pool wait, and the cluster client makes one attempt
 * only, so a script that timed out is never replayed by the client.
 *
 * <p>{@link #of} checks the settings and builds everything that needs no server (the URL's parts, the TLS
 * context from the trust store), so a bad value fails the deployment; {@link #connect} then builds the client.
 */
// Jedis 7.5 marks these classes and builder methods deprecated in favour of Jedis 8's RedisClient family; this
// version stays on Jedis 7 (docs/stores.md#the-valkey--redis-backend), whose classes are still supported there.
@SuppressWarnings("deprecation")
final class ValkeyClientFactory {

    private static final String URL = "ratelimiter.valkey.url";

    private final ValkeySettings settings;
    private final JedisClientConfig config;
    private final JedisClientConfig sentinelConfig;
    private final ConnectionPoolConfig pool;
    private final HostAndPort standaloneAddress;

    private ValkeyClientFactory(ValkeySettings settings, URI uri) {
        this.settings = settings;
        boolean tls = JedisURIHelper.isRedisSSLScheme(uri);
        int millis = (int) Math.min(Integer.MAX_VALUE, settings.timeout().toMillis());
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis)
                .socketTimeoutMillis(millis)
                .clientName("jakarta-rate-limiter")
                .ssl(tls);
        settings.user().or(() -> Optional.ofNullable(JedisURIHelper.getUser(uri))).ifPresent(client::user);
        settings.password().or(() -> Optional.ofNullable(JedisURIHelper.getPassword(uri)))
                .ifPresent(client::password);
        if (JedisURIHelper.hasDbIndex(uri)) {
            client.database(JedisURIHelper.getDBIndex(uri));
        }
        // The Sentinels' own connections: the same deadline and TLS, their own credentials if any.
        DefaultJedisClientConfig.Builder sentinel = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis).socketTimeoutMillis(millis).ssl(tls);
        settings.sentinelUser().ifPresent(sentinel::user);
        settings.sentinelPassword().ifPresent(sentinel::password);
        if (tls) {
            SSLContext context = settings.trustStore()
                    .map(path -> sslContext(Path.of(path), settings.trustStorePassword().orElse("")))
                    .orElse(null);
            secure(client, context);
            secure(sentinel, context);
        }
        this.config = client.build();
        this.sentinelConfig = sentinel.build();
        this.pool = new ConnectionPoolConfig();
        pool.setMaxTotal(settings.poolSize());
        pool.setMaxIdle(settings.poolSize());
        pool.setMinIdle(Math.min(2, settings.poolSize()));
        pool.setBlockWhenExhausted(true);
        pool.setMaxWait(settings.timeout());
        pool.setTestOnBorrow(false);
        pool.setTestWhileIdle(true);
        pool.setTimeBetweenEvictionRuns(Duration.ofSeconds(30));
        this.standaloneAddress = settings.mode() == ValkeySettings.Mode.STANDALONE
                ? JedisURIHelper.getHostAndPort(uri) : null; // Sentinels and seed nodes name the servers
    }

    /**
     * Checks the settings and prepares the client without connecting.
     *
     * @throws ConfigurationException naming {@code ratelimiter.valkey.url}, {@code .trust-store} or
     *                                {@code .trust-store-password} when one of them is unusable
     */
    static ValkeyClientFactory of(ValkeySettings settings) {
        return new ValkeyClientFactory(settings, parse(settings));
    }

    /**
     * Checks, prepares and builds the client at once (see {@link #connect}).
     *
     * @throws ConfigurationException as {@link #of}
     */
    static ValkeyClient create(ValkeySettings settings) {
        return of(settings).connect();
    }

    /** Whether the client is a cluster's. */
    boolean cluster() {
        return settings.mode() == ValkeySettings.Mode.CLUSTER;
    }

    /** Whether {@link #connect} needs the server: the Sentinel and Cluster clients ask it for the topology. */
    boolean connectsWhenBuilt() {
        return settings.mode() != ValkeySettings.Mode.STANDALONE;
    }

    /**
     * Builds the client. A standalone client connects at its first call; the Sentinel and Cluster clients connect
     * here.
     *
     * @throws redis.clients.jedis.exceptions.JedisException if a Sentinel or Cluster client finds no server
     */
    ValkeyClient connect() {
        switch (settings.mode()) {
            case SENTINEL:
                return ValkeyClient.sentineled(new JedisSentineled(settings.masterName().orElseThrow(), config, pool,
                        nodes(settings), sentinelConfig));
            case CLUSTER:
                ClusterConnectionProvider provider = new ClusterConnectionProvider(nodes(settings), config, pool);
                return ValkeyClient.cluster(new JedisCluster(provider, 1, settings.timeout()), provider);
            case STANDALONE:
            default:
                return ValkeyClient.standalone(new JedisPooled(standaloneAddress, config, pool));
        }
    }

    /**
     * The URL's parts Jedis reads, checked here because Jedis reads a malformed one silently (an unparsable port
     * as the default port) or fails at the first call. Messages never repeat the URL, which may hold a password.
     */
    private static URI parse(ValkeySettings settings) {
        URI uri;
        try {
            uri = new URI(settings.url());
        } catch (URISyntaxException e) {
            throw problem(URL + ": not a URL (" + e.getReason() + " at index " + e.getIndex() + ")");
        }
        if (!JedisURIHelper.isRedisScheme(uri) && !JedisURIHelper.isRedisSSLScheme(uri)) {
            throw problem(URL + ": must start with redis:// or rediss:// (TLS)");
        }
        if (uri.getHost() == null) { // also in sentinel and cluster mode: without a host no user or password is read
            throw problem(URL + ": has no host, or its port is not a number: use redis://host:port");
        }
        if (uri.getPort() == 0 || uri.getPort() > 65_535) {
            throw problem(URL + ": the port must be 1 to 65535");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        if (!path.isEmpty() && !path.equals("/") && !path.matches("/\\d{1,5}")) {
            throw problem(URL + ": the path must be a database number, as in redis://host:6379/0");
        }
        return uri;
    }

    private static ConfigurationException problem(String message) {
        return new ConfigurationException(List.of(message));
    }

    /** TLS with host-name verification, and the configured trust store if any (else the JVM's). */
    private static void secure(DefaultJedisClientConfig.Builder client, SSLContext trustStore) {
        SSLParameters parameters = new SSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // check the certificate names the host
        client.sslParameters(parameters);
        if (trustStore != null) {
            client.sslSocketFactory(trustStore.getSocketFactory());
        }
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
            // KeyStore.load reports a wrong password as an IOException caused by UnrecoverableKeyException.
            String property = e.getCause() instanceof UnrecoverableKeyException
                    ? "ratelimiter.valkey.trust-store-password: does not open " + trustStore
                    : "ratelimiter.valkey.trust-store: cannot load " + trustStore;
            throw problem(property + ": " + e.getMessage());
        }
    }
}
