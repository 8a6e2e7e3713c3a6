package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.testing.TestServers;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The PostgreSQL server the tests use ({@link TestServers#postgres()}). Each test class gets a schema of its own with
 * the migration applied by Flyway, so runs do not disturb each other.
 */
final class PostgresTarget {

    private PostgresTarget() {
    }

    static String url() {
        return TestServers.postgres().url();
    }

    static String user() {
        return TestServers.postgres().user();
    }

    static String password() {
        return TestServers.postgres().password();
    }

    /** A plain DataSource on the target whose connections use {@code schema} first. */
    static DataSource dataSource(String schema) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(url());
        dataSource.setUser(user());
        dataSource.setPassword(password());
        dataSource.setCurrentSchema(schema);
        return dataSource;
    }

    /**
     * A HikariCP pool on the target whose connections use {@code schema} first, as an application's pool would
     * be (a new connection per call would measure connection set-up, not the statement).
     */
    static com.zaxxer.hikari.HikariDataSource pool(String schema, int size) {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(url());
        config.setUsername(user());
        config.setPassword(password());
        config.setSchema(schema);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(30_000);
        return new com.zaxxer.hikari.HikariDataSource(config);
    }

    /** Creates a new schema and applies the library's migration to it with Flyway, as an application would. */
    static String newSchema(String purpose) {
        String schema = "rl_" + purpose + "_" + UUID.randomUUID().toString().substring(0, 8);
        Flyway.configure()
                .dataSource(url(), user(), password())
                .schemas(schema)
                .createSchemas(true)
                .locations("classpath:db/ratelimiter/postgres")
                .table("flyway_ratelimiter_history")
                .load()
                .migrate();
        return schema;
    }

    /** Drops a schema made by {@link #newSchema}. */
    static void dropSchema(String schema) {
        try (Connection connection = dataSource("public").getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
