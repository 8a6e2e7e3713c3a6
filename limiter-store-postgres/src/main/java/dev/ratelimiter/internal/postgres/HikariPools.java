package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.spi.ConfigurationException;

import javax.sql.DataSource;
import java.util.List;

/**
 * The library's own pool for {@code ratelimiter.postgres.url}: HikariCP, autocommit, READ COMMITTED, the
 * statement timeout set on every connection (PostgreSQL's {@code options=-c statement_timeout=...}). Behind
 * PgBouncer ({@code ratelimiter.postgres.pgbouncer=true}) neither: PgBouncer refuses the {@code options} startup
 * parameter in every pool mode, and in transaction mode (1.18 has no protocol-level prepared statements) a
 * statement prepared on one server connection is missing on the next, so every statement stays unnamed
 * ({@code prepareThreshold=0}). The deadline then rests on the network timeout each call sets (see
 * docs/stores.md#pgbouncer).
 */
public final class HikariPools {

    private HikariPools() {
    }

    /**
     * A new pool, built without connecting (the database may be down at startup: the breaker decides); the caller
     * closes it ({@link #close}).
     *
     * @param settings {@code ratelimiter.postgres.*}: URL, user, password, pool size, timeout, PgBouncer
     * @return the pool, a {@code HikariDataSource}
     * @throws ConfigurationException naming {@code ratelimiter.postgres.url} when the driver refuses the URL
     */
    public static DataSource create(PostgresSettings settings) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("ratelimiter");
        config.setJdbcUrl(settings.url().orElseThrow());
        // Named, not looked up in DriverManager: inside a WAR the driver is not registered for the server.
        config.setDriverClassName("org.postgresql.Driver");
        settings.user().ifPresent(config::setUsername);
        settings.password().ifPresent(config::setPassword);
        config.setMaximumPoolSize(settings.poolSize());
        config.setMinimumIdle(Math.min(2, settings.poolSize()));
        config.setAutoCommit(true);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        config.setConnectionTimeout(settings.connectionWait().toMillis());
        config.setValidationTimeout(settings.connectionWait().toMillis());
        config.setInitializationFailTimeout(-1); // start even when the database is down: the breaker decides
        // Strings only: pgjdbc reads the stringPropertyNames() of what HikariCP hands it, so a number is dropped.
        if (settings.pgbouncer()) {
            config.addDataSourceProperty("prepareThreshold", "0");
        } else {
            config.addDataSourceProperty("options", "-c statement_timeout=" + settings.timeout().toMillis());
        }
        config.addDataSourceProperty("connectTimeout", String.valueOf(Math.max(1, settings.timeout().toSeconds())));
        DriverRegistration.acquire();
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            DriverRegistration.release(); // the deployment fails and goes: nothing of it stays registered
            // Hikari says "Driver ... claims to not accept jdbcUrl"; the URL itself is left out of the message,
            // since it may carry a password.
            throw new ConfigurationException(List.of("ratelimiter.postgres.url: the PostgreSQL driver does not "
                    + "accept it; use jdbc:postgresql://host[:port]/database[?parameters]"));
        }
    }

    /**
     * Evicts a connection of a pool made by {@link #create}, and retires the pool's other connections as they come
     * back: they came from the same address, so after a demotion they are read-only sessions too, and would stay so
     * after the database is writable again.
     *
     * @param dataSource a pool made by {@link #create}
     * @return how the store evicts a connection of that pool
     */
    public static ConnectionEviction eviction(DataSource dataSource) {
        HikariDataSource hikari = (HikariDataSource) dataSource;
        return connection -> {
            hikari.evictConnection(connection);
            hikari.getHikariPoolMXBean().softEvictConnections();
        };
    }

    /**
     * Closes a pool made by {@link #create}, and takes pgjdbc out of {@code DriverManager} when it came with the
     * application, so that an undeployed application leaves no class loader behind ({@link DriverRegistration}).
     *
     * @param dataSource the pool; anything else is left alone
     */
    public static void close(DataSource dataSource) {
        if (dataSource instanceof HikariDataSource hikari) {
            hikari.close();
            DriverRegistration.release();
        }
    }
}
