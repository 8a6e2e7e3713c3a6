package dev.ratelimiter.postgres;

import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The PostgreSQL server the tests use: {@code RATELIMITER_TEST_POSTGRES_URL} (with
 * {@code RATELIMITER_TEST_POSTGRES_USER} and {@code _PASSWORD}, default postgres and none) when set; else, where
 * Docker runs, a {@code postgres} container started by Testcontainers; else the machine's own server at
 * jdbc:postgresql://127.0.0.1:5432/test as postgres. A server that does not answer fails the tests, never skips
 * them. Each test class gets a schema of its own with the migration applied by Flyway, so runs do not disturb each
 * other.
 */
final class PostgresTarget {

    private static String url;
    private static String user;
    private static String password;

    private PostgresTarget() {
    }

    static synchronized String url() {
        if (url == null) {
            String configured = System.getenv("RATELIMITER_TEST_POSTGRES_URL");
            if (configured != null && !configured.isBlank()) {
                url = configured;
                user = System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_USER", "postgres");
                password = System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_PASSWORD", "");
            } else if (dockerAvailable()) {
                GenericContainer<?> postgres = new GenericContainer<>("postgres:16")
                        .withEnv("POSTGRES_PASSWORD", "test")
                        .withEnv("POSTGRES_DB", "test")
                        .withExposedPorts(5432)
                        .waitingFor(Wait.forLogMessage(".*ready to accept connections.*\\n", 2));
                postgres.start(); // stopped by Testcontainers' reaper when the JVM exits
                url = "jdbc:postgresql://" + postgres.getHost() + ":" + postgres.getMappedPort(5432) + "/test";
                user = "postgres";
                password = "test";
            } else {
                url = "jdbc:postgresql://127.0.0.1:5432/test";
                user = "postgres";
                password = "";
            }
        }
        return url;
    }

    static String user() {
        url();
        return user;
    }

    static String password() {
        url();
        return password;
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

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
