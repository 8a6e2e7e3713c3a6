package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.testing.TestServers;
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
 * The example API's scenarios on Quarkus with the PostgreSQL backend through a named Agroal datasource of the
 * limiter's own ({@code ratelimiter.postgres.datasource=ratelimiter}, {@code jdbc.transactions=disabled}) beside the
 * application's default, transactional one, the table made by Flyway from the migration in the library's jar.
 * The tests' server ({@link TestServers#postgres()}); a schema of this run's own, dropped at the end.
 *
 * <p>The transaction scenario (an import that rolls back still counts in the store) fails here if the library took
 * the default datasource or the named one were transactional: Agroal's enlisted connection is not in autocommit,
 * the library refuses it, and the bucket's fallback counts instead (Quarkus has no managed executor to run the
 * call outside the transaction).
 */
@QuarkusTest
@TestProfile(QuarkusPostgresExampleApiTest.Postgres.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuarkusPostgresExampleApiTest extends QuarkusExampleApiTest {

    @Inject
    DataSource dataSource;

    @ConfigProperty(name = "quarkus.flyway.ratelimiter.schemas")
    String schema;

    @AfterAll
    void dropSchema() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA \"" + schema + "\" CASCADE");
        }
    }

    /** Backend postgres on a named Agroal datasource of its own, beside the application's default one. */
    public static class Postgres implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            String schema = "rl_quarkus_" + UUID.randomUUID().toString().substring(0, 8);
            String url = TestServers.postgres().url();
            String user = TestServers.postgres().user();
            String password = TestServers.postgres().password();
            return Map.ofEntries(
                    Map.entry("ratelimiter.backend", "postgres"),
                    Map.entry("ratelimiter.postgres.datasource", "ratelimiter"),
                    // The scenarios test counting, not deadlines: a generous one keeps a first decision on a cold,
                    // loaded 2-core CI machine from timing out, which the metrics scenario would see as a store error.
                    Map.entry("ratelimiter.postgres.timeout", "PT1S"),
                    // The application's own default datasource, transactional as Quarkus makes it.
                    Map.entry("quarkus.datasource.db-kind", "postgresql"),
                    Map.entry("quarkus.datasource.devservices.enabled", "false"),
                    Map.entry("quarkus.datasource.jdbc.url", url),
                    Map.entry("quarkus.datasource.username", user),
                    Map.entry("quarkus.datasource.password", password),
                    // The limiter's: named, non-transactional, its table made by Flyway from the library's jar.
                    Map.entry("quarkus.datasource.ratelimiter.db-kind", "postgresql"),
                    Map.entry("quarkus.datasource.ratelimiter.devservices.enabled", "false"),
                    Map.entry("quarkus.datasource.ratelimiter.jdbc.url",
                            url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema),
                    Map.entry("quarkus.datasource.ratelimiter.username", user),
                    Map.entry("quarkus.datasource.ratelimiter.password", password),
                    Map.entry("quarkus.datasource.ratelimiter.jdbc.transactions", "disabled"),
                    Map.entry("quarkus.flyway.ratelimiter.migrate-at-start", "true"),
                    Map.entry("quarkus.flyway.ratelimiter.schemas", schema),
                    Map.entry("quarkus.flyway.ratelimiter.create-schemas", "true"),
                    Map.entry("quarkus.flyway.ratelimiter.locations", "db/ratelimiter/postgres"),
                    Map.entry("quarkus.flyway.ratelimiter.table", "flyway_ratelimiter_history"));
        }
    }

    @Override
    protected Map<String, String> scenariosNotRun() {
        return runOnly(ON_A_SHARED_STORE, Map.of());
    }

    @Override
    protected String backend() {
        return "postgres";
    }
}
