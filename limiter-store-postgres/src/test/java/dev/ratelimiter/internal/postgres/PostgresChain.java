package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.contract.StoreChain;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The test chain ({@link StoreChain}) around a PostgreSQL store with {@code ratelimiter.postgres.url}: the store's
 * pool is the library's own ({@link HikariPools}, made by {@link PostgresStore#start}, as the provider makes it), or
 * a server's pool given as the application's DataSource. The store's limiter is the library's
 * {@link StoreLimiter}.
 */
final class PostgresChain extends StoreChain {

    /** The library's default deadline ({@code ratelimiter.postgres.timeout}). */
    static final Duration TIMEOUT = Duration.ofMillis(100);
    static final String TABLE = "rate_limit_counters";

    private static final Pattern HOST_PORT_DB = Pattern.compile("jdbc:postgresql://([^:/?]+)(?::(\\d+))?/([^?]*)(.*)");

    /** The store itself, also its sweeper. */
    final PostgresStore postgres;
    /** The store's limiter, answering {@code UNAVAILABLE} for its failures (not counted). */
    final StoreLimiter storeLimiter;

    PostgresChain(PostgresSettings settings) {
        this(new BackendMonitor("postgres", InstantSource.system(), RateLimiterMetrics.NONE), settings,
                Optional.empty());
    }

    /** The chain on a server's pool (the application's DataSource), which the library does not close. */
    PostgresChain(PostgresSettings settings, DataSource serverPool) {
        this(new BackendMonitor("postgres", InstantSource.system(), RateLimiterMetrics.NONE), settings,
                Optional.of(serverPool));
    }

    /**
     * The chain on the library's own pool, or a server's, with the breaker's own settings: a test of recovery that
     * need not wait the default back-off.
     */
    PostgresChain(PostgresSettings settings, Optional<DataSource> serverPool, BreakerSettings breaker) {
        this(new BackendMonitor("postgres", InstantSource.system(), RateLimiterMetrics.NONE), settings, serverPool,
                breaker);
    }

    private PostgresChain(BackendMonitor monitor, PostgresSettings settings, Optional<DataSource> serverPool) {
        this(monitor, settings, serverPool, BreakerSettings.DEFAULTS);
    }

    private PostgresChain(BackendMonitor monitor, PostgresSettings settings, Optional<DataSource> serverPool,
                          BreakerSettings breaker) {
        this(monitor, PostgresStore.start(settings, serverPool, InstantSource.system()), breaker);
    }

    private PostgresChain(BackendMonitor monitor, PostgresStore postgres, BreakerSettings breaker) {
        this(monitor, postgres, new StoreLimiter(postgres, monitor, RateLimiterMetrics.NONE), breaker);
    }

    private PostgresChain(BackendMonitor monitor, PostgresStore postgres, StoreLimiter storeLimiter,
                          BreakerSettings breaker) {
        super(monitor, storeLimiter, Optional.empty(), postgres::probe, postgres::close, DenyCacheSettings.OFF,
                breaker);
        this.postgres = postgres;
        this.storeLimiter = storeLimiter;
    }

    /** The library's settings for its own pool on {@code url}: 100 ms deadline, {@code poolSize} connections. */
    static PostgresSettings settings(String url, int poolSize) {
        return settings(url, poolSize, false);
    }

    /** As {@link #settings(String, int)}, with {@code ratelimiter.postgres.pgbouncer}. */
    static PostgresSettings settings(String url, int poolSize, boolean pgbouncer) {
        return settings(url, poolSize, pgbouncer, TIMEOUT);
    }

    /** As {@link #settings(String, int, boolean)}, with a deadline of {@code timeout} instead of the default. */
    static PostgresSettings settings(String url, int poolSize, boolean pgbouncer, Duration timeout) {
        String password = PostgresTarget.password();
        return new PostgresSettings(Optional.empty(), Optional.of(url), Optional.of(PostgresTarget.user()),
                password == null || password.isEmpty() ? Optional.empty() : Optional.of(password), TABLE, timeout,
                Duration.ofMinutes(5), poolSize, pgbouncer);
    }

    /**
     * The target's URL with {@code schema} first on the search path, sessions named {@code applicationName}
     * (to find them in pg_stat_activity), and, when {@code port} is given, through 127.0.0.1 on that port.
     */
    static String url(String schema, String applicationName, Optional<Integer> port) {
        Matcher url = target();
        String query = url.group(4).isEmpty() ? "?" : url.group(4) + "&";
        String hostPort = port.map(p -> "127.0.0.1:" + p)
                .orElse(url.group(1) + (url.group(2) == null ? "" : ":" + url.group(2)));
        return "jdbc:postgresql://" + hostPort + "/" + url.group(3) + query + "currentSchema=" + schema
                + "&ApplicationName=" + applicationName;
    }

    static String targetHost() {
        return target().group(1);
    }

    static int targetPort() {
        String port = target().group(2);
        return port == null ? 5432 : Integer.parseInt(port);
    }

    private static Matcher target() {
        Matcher url = HOST_PORT_DB.matcher(PostgresTarget.url());
        if (!url.matches()) {
            throw new IllegalStateException("not a jdbc:postgresql://host[:port]/db URL: " + PostgresTarget.url());
        }
        return url;
    }

    /** The count stored for a key, or -1 when it has no row; read on a connection of its own. */
    static long storedCount(String schema, String bucket, String key) throws SQLException {
        return storedCount(PostgresTarget.dataSource(schema), bucket, key);
    }

    /** As {@link #storedCount(String, String, String)}, on {@code database}'s first schema with the table. */
    static long storedCount(DataSource database, String bucket, String key) throws SQLException {
        try (Connection connection = database.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT count FROM " + TABLE + " WHERE bucket = ? AND key = ?")) {
            statement.setString(1, bucket);
            statement.setString(2, key);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? row.getLong(1) : -1;
            }
        }
    }
}
