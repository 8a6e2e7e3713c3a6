package dev.ratelimiter.it.quarkus;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;

/**
 * The example API's scenarios on Quarkus with the PostgreSQL backend through the application's own Agroal
 * DataSource (non-transactional, so a counter never joins a transaction), the table made by Flyway from the
 * migration in the library's jar. {@code RATELIMITER_TEST_POSTGRES_URL}, else the machine's server; a schema of
 * this run's own, dropped at the end.
 *
 * <p>The transaction scenario (an import that rolls back still counts in the store) fails here if the DataSource
 * is made transactional ({@code quarkus.datasource.jdbc.transactions=enabled}): Agroal's enlisted connection is not
 * in autocommit, the library refuses it, and the bucket's fallback counts instead (Quarkus has no managed executor
 * to run the call outside the transaction).
 */
@QuarkusTest
@TestProfile(QuarkusPostgresExampleApiTest.Postgres.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuarkusPostgresExampleApiTest extends QuarkusExampleApiTest {

    @Inject
    DataSource dataSource;

    @ConfigProperty(name = "quarkus.flyway.schemas")
    String schema;

    @AfterAll
    void dropSchema() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA \"" + schema + "\" CASCADE");
        }
    }

    /** Backend postgres on Agroal's default datasource. */
    public static class Postgres implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            String schema = "rl_quarkus_" + UUID.randomUUID().toString().substring(0, 8);
            String url = System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_URL",
                    "jdbc:postgresql://127.0.0.1:5432/test");
            return Map.ofEntries(
                    Map.entry("ratelimiter.backend", "postgres"),
                    Map.entry("quarkus.datasource.db-kind", "postgresql"),
                    Map.entry("quarkus.datasource.devservices.enabled", "false"),
                    Map.entry("quarkus.datasource.jdbc.url",
                            url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema),
                    Map.entry("quarkus.datasource.username",
                            System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_USER", "postgres")),
                    Map.entry("quarkus.datasource.password",
                            System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_PASSWORD", "")),
                    Map.entry("quarkus.datasource.jdbc.transactions", "disabled"),
                    Map.entry("quarkus.flyway.migrate-at-start", "true"),
                    Map.entry("quarkus.flyway.schemas", schema),
                    Map.entry("quarkus.flyway.create-schemas", "true"),
                    Map.entry("quarkus.flyway.locations", "db/ratelimiter/postgres"),
                    Map.entry("quarkus.flyway.table", "flyway_ratelimiter_history"));
        }
    }

    @Override
    protected String backend() {
        return "postgres";
    }
}
