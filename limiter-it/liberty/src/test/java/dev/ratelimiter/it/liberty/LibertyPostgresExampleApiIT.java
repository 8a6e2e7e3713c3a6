package dev.ratelimiter.it.liberty;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.PostgresSchema;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;

/**
 * The example API's scenarios on Open Liberty with the PostgreSQL backend through Liberty's own dataSource
 * ({@code jdbc/ratelimiter} in server.xml, READ COMMITTED), named in {@code ratelimiter.postgres.datasource}. That
 * dataSource is transactional on purpose: its connections, enlisted in a caller's transaction, still report
 * autocommit, so only the library's hand-over to the managed executor keeps the counter out of the transaction.
 * The import scenario is the test of it: an import rolled back by Liberty's transaction manager still counts in the
 * store (without the hand-over a valid fourth import is allowed). The table is in this run's own schema, migrated
 * before the deployment.
 */
class LibertyPostgresExampleApiIT extends LibertyExampleScenarios {

    // Made by the deployment method, which Arquillian calls before anything of the class runs.
    private static PostgresSchema schema;

    @Deployment(testable = false)
    static WebArchive deployment() {
        LibertyPostgresOverride.applyIfInContainer();
        schema = PostgresSchema.create("rl_liberty");
        // server.xml's dataSource is static, so the deployment names this run's table rather than the pool
        // choosing the schema. The scenarios test counting, not deadlines: a generous one keeps a decision on a
        // loaded 2-core CI machine from timing out (which the metrics scenario would see as a store error).
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + "ratelimiter.backend=postgres\nratelimiter.postgres.datasource=jdbc/ratelimiter\n"
                + "ratelimiter.postgres.timeout=PT1S\n"
                + "ratelimiter.postgres.table=" + schema.name() + ".rate_limit_counters\n");
    }

    @AfterAll
    static void dropSchema() {
        if (schema != null) {
            schema.close();
        }
    }

    @Override
    protected String backend() {
        return "postgres";
    }
}
