package dev.ratelimiter.it.payara;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A PostgreSQL schema of one test's own, with the library's migration applied, and the Payara pool that reaches
 * it as an application declares it. The server is {@code RATELIMITER_TEST_POSTGRES_URL} (with {@code _USER},
 * {@code _PASSWORD}), else the machine's own at 127.0.0.1:5432, database {@code test}, user {@code postgres}.
 */
final class PostgresSchema implements AutoCloseable {

    /** Where the example's pool is bound: an application name, so Payara binds it when the application starts. */
    static final String JNDI_NAME = "java:app/jdbc/ratelimiter";

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

    /** The counters of {@code bucket}: how many rows, and the highest count among them. */
    long[] counters(String bucket) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*), coalesce(max(count), 0) FROM " + name
                     + ".rate_limit_counters WHERE bucket = '" + bucket.replace("'", "''") + "'")) {
            row.next();
            return new long[] {row.getLong(1), row.getLong(2)};
        }
    }

    /**
     * {@code WEB-INF/glassfish-resources.xml} for the example: the application's own pool (Payara
     * application-scoped resources), the driver from the WAR's WEB-INF/lib, non-transactional connections (a
     * counter must never join a transaction), READ COMMITTED, this schema first in the search path. Payara wants a
     * {@code password} property even when it is empty.
     */
    String glassfishResources() {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE resources PUBLIC "-//GlassFish.org//DTD GlassFish Application Server 3.1 Resource Definitions//EN" "http://glassfish.org/dtds/glassfish-resources_1_5.dtd">
                <resources>
                  <jdbc-connection-pool name="java:app/ratelimiter-pool" res-type="javax.sql.DataSource"
                      datasource-classname="org.postgresql.ds.PGSimpleDataSource"
                      non-transactional-connections="true" transaction-isolation-level="read-committed"
                      steady-pool-size="2" max-pool-size="8">
                    <property name="URL" value="%s"/>
                    <property name="user" value="%s"/>
                    <property name="password" value="%s"/>
                    <property name="currentSchema" value="%s"/>
                  </jdbc-connection-pool>
                  <jdbc-resource jndi-name="%s" pool-name="java:app/ratelimiter-pool"/>
                </resources>
                """.formatted(xml(URL), xml(USER), xml(PASSWORD), name, JNDI_NAME);
    }

    /** The example's configuration for this pool. */
    static String config() {
        return "ratelimiter.backend=postgres\nratelimiter.postgres.datasource=" + JNDI_NAME + "\n";
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

    private static String xml(String text) {
        return text.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }
}
