package dev.ratelimiter.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.core.ConfigurationException;
import dev.ratelimiter.core.PostgresSettings;

import javax.sql.DataSource;
import java.util.List;

/**
 * The library's own pool for {@code ratelimiter.postgres.url}: HikariCP, autocommit, READ COMMITTED, the
 * statement timeout set on every connection (PostgreSQL's {@code options=-c statement_timeout=...}).
 */
public final class HikariPools {

    private HikariPools() {
    }

    /**
     * A new pool, built without connecting (the database may be down at startup: the breaker decides); the caller
     * closes it ({@link #close}).
     *
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
        config.setConnectionTimeout(Math.max(250, settings.timeout().toMillis())); // Hikari's floor is 250 ms
        config.setValidationTimeout(Math.max(250, settings.timeout().toMillis()));
        config.setInitializationFailTimeout(-1); // start even when the database is down: the breaker decides
        config.addDataSourceProperty("options", "-c statement_timeout=" + settings.timeout().toMillis());
        config.addDataSourceProperty("connectTimeout", Math.max(1, settings.timeout().toSeconds()));
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            // Hikari says "Driver ... claims to not accept jdbcUrl"; the URL itself is left out of the message,
            // since it may carry a password.
            throw new ConfigurationException(List.of("ratelimiter.postgres.url: the PostgreSQL driver does not "
                    + "accept it; use jdbc:postgresql://host[:port]/database[?parameters]"));
        }
    }

    /** Closes a pool made by {@link #create}. */
    public static void close(DataSource dataSource) {
        if (dataSource instanceof HikariDataSource hikari) {
            hikari.close();
        }
    }
}
