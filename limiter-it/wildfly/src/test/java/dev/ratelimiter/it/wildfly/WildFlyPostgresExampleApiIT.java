package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.OpenApiScenarios;
import dev.ratelimiter.it.PostgresSchema;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * The example API's scenarios, every one, on WildFly 39 (standalone-microprofile.xml, with Micrometer's Prometheus
 * registry added by configure.cli), on PostgreSQL through a datasource of the server declared as the library needs
 * it: {@code jta="false"}, READ COMMITTED ({@code java:jboss/datasources/ratelimiter}, configure.cli). The same
 * example, the same library jar, nothing added for this server; {@code ratelimiter.metrics.system} left at
 * {@code auto}, which finds the Micrometer subsystem's {@code MeterRegistry}.
 *
 * <p>Readiness and metrics are on WildFly's management interface, not the application's port:
 * {@code /health/ready} and {@code /prometheus} there ({@link WildFlyManagement}).
 *
 * <p>The other classes of this module run, on the same server: the scenarios in memory with a configuration profile
 * and on Valkey, with a listed {@code Application}; live limits; the global key resolver; the starts that must fail;
 * a Valkey outage (readiness degraded) and the fallback's carry; a {@code jta="true"} datasource; redeploys; Fault
 * Tolerance beside the library. What other modules run and this one does not, each about something other than the
 * server: two instances sharing a store and the library's own pool exhausted ({@code limiter-it/payara}: the store and
 * the library's HikariCP pool, the same on every server); the fallback's carry with PostgreSQL cut off (the carry is
 * the library's, run here with Valkey); the curl tours of docs/tour.md (run on Payara Micro, which
 * serves the example there). Not run anywhere yet, and so not claimed for WildFly: MicroProfile Telemetry's OpenTelemetry as the metrics
 * system (this server has the Micrometer subsystem, which {@code auto} takes first), and a {@code jta="true"}
 * datasource on a server without a default managed executor.
 */
class WildFlyPostgresExampleApiIT extends WildFlyExampleScenarios {

    // Made by the deployment method, which Arquillian calls before anything of the class runs.
    private static PostgresSchema schema;

    @Deployment(testable = false)
    static WebArchive deployment() {
        schema = PostgresSchema.create("rl_wildfly");
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + "ratelimiter.backend=postgres\n"
                + "ratelimiter.postgres.datasource=java:jboss/datasources/ratelimiter\n"
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

    @Test
    @DisplayName("/openapi (WildFly's MicroProfile OpenAPI) shows the example's limits: login's and reports', the 429, "
            + "400 and the refusal's schema")
    void openApiDocument() throws Exception {
        OpenApiScenarios.assertExampleDocumented(baseUri().resolve("/openapi"), baseUri());
    }

    @Override
    protected Map<String, String> scenariosNotRun() {
        return runOnly(ON_A_SHARED_STORE, Map.of());
    }
}
