package dev.ratelimiter.it;

import dev.ratelimiter.testing.TestServers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A PostgreSQL schema of one test's own with the library's migrations applied by hand, in version order (V1, V2,
 * ...), on the server the tests use ({@link TestServers#postgres()}). The test module brings the JDBC driver and
 * passes the migrations' directory ({@code migrations/postgres}) as the system property
 * {@code it.postgres.migrations}.
 */
public final class PostgresSchema implements AutoCloseable {

    private final String name;

    private PostgresSchema(String name) {
        this.name = name;
    }

    /** Creates {@code <prefix>_<random>} and applies the migrations to it. */
    public static PostgresSchema create(String prefix) {
        PostgresSchema schema = new PostgresSchema(prefix + "_" + UUID.randomUUID().toString().substring(0, 8));
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema.name);
            statement.execute("SET search_path TO " + schema.name);
            for (Path migration : migrations()) {
                statement.execute(Files.readString(migration));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare schema " + schema.name + " on " + TestServers.postgres().url(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return schema;
    }

    /** {@code V<n>__*.sql} of the migrations' directory, by version. */
    private static List<Path> migrations() throws IOException {
        String directory = System.getProperty("it.postgres.migrations");
        if (directory == null) {
            throw new IllegalStateException("the system property it.postgres.migrations is not set: the test module's "
                    + "surefire or failsafe configuration passes the migrations' directory, migrations/postgres");
        }
        try (Stream<Path> files = Files.list(Path.of(directory))) {
            return files.filter(file -> file.getFileName().toString().matches("V\\d+__.*\\.sql"))
                    .sorted(Comparator.comparingInt(file -> Integer.parseInt(
                            file.getFileName().toString().substring(1, file.getFileName().toString().indexOf("__")))))
                    .toList();
        }
    }

    /** The schema's name. */
    public String name() {
        return name;
    }

    /**
     * The properties of a deployment counting in this schema's table through the library's own pool
     * ({@code ratelimiter.postgres.url}), as the test server's user, with a deadline of 1 s: the tests check
     * counting, not deadlines, and a loaded 2-core machine must not time a decision out into the fallback.
     *
     * @param url the JDBC URL the pool connects to: the test server's, or a proxy's in front of it
     */
    public String ownPool(String url) {
        TestServers.Postgres postgres = TestServers.postgres();
        return "ratelimiter.backend=postgres\n"
                + "ratelimiter.postgres.url=" + url + "\n"
                + "ratelimiter.postgres.user=" + postgres.user() + "\n"
                + (postgres.password().isEmpty() ? "" : "ratelimiter.postgres.password=" + postgres.password() + "\n")
                + "ratelimiter.postgres.timeout=PT1S\n"
                + "ratelimiter.postgres.table=" + name + ".rate_limit_counters\n";
    }

    /** The counters of {@code bucket}: how many rows, and the highest count among them. */
    public long[] counters(String bucket) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*), coalesce(max(count), 0) FROM " + name
                     + ".rate_limit_counters WHERE bucket = '" + bucket.replace("'", "''") + "'")) {
            row.next();
            return new long[] {row.getLong(1), row.getLong(2)};
        }
    }

    /** Drops the schema and what is in it. */
    @Override
    public void close() {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop schema " + name, e);
        }
    }

    private static Connection connect() throws SQLException {
        TestServers.Postgres server = TestServers.postgres();
        return DriverManager.getConnection(server.url(), server.user(), server.password());
    }
}
