package dev.ratelimiter.it.liberty;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A PostgreSQL schema of one test's own, with the library's migration applied: server.xml's dataSource is
 * static, so the deployment names this schema's table ({@code ratelimiter.postgres.table}) instead of the pool
 * choosing the schema. The server is the one that dataSource reaches: {@code RATELIMITER_TEST_POSTGRES_URL} (with
 * {@code _USER}, {@code _PASSWORD}), else the machine's own at 127.0.0.1:5432, database {@code test}, user
 * {@code postgres}.
 */
final class PostgresSchema implements AutoCloseable {

    /** server.xml's dataSource: a server resource, bound before any application starts. */
    static final String JNDI_NAME = "jdbc/ratelimiter";

    private static final String URL = System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_URL",
            "jdbc:postgresql://127.0.0.1:5432/test");
    private static final String USER = System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_USER", "postgres");
    private static final String PASSWORD = System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_PASSWORD", "");

    private final String name;

    private PostgresSchema(String name) {
        this.name = name;
    }

    /** Creates {@code <prefix>_<random>} and applies the migration named by the system property {@code ratelimiter.migration}. */
    static PostgresSchema create(String prefix) {
        PostgresSchema schema = new PostgresSchema(prefix + "_" + UUID.randomUUID().toString().substring(0, 8));
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema.name);
            statement.execute("SET search_path TO " + schema.name);
            statement.execute(Files.readString(Path.of(System.getProperty("ratelimiter.migration"))));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare schema " + schema.name + " on " + URL, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return schema;
    }

    /** The example's configuration: server.xml's dataSource, and this schema's table. */
    String config() {
        return "ratelimiter.backend=postgres\nratelimiter.postgres.datasource=" + JNDI_NAME
                + "\nratelimiter.postgres.table=" + name + ".rate_limit_counters\n";
    }

    @Override
    public void close() {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop schema " + name, e);
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(URL, USER, PASSWORD);
    }
}
