package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.PostgresSchema;
import jakarta.json.JsonObject;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpResponse;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PostgreSQL backend on a datasource declared as WildFly declares them by default, {@code jta="true"}
 * ({@code java:jboss/datasources/ratelimiter-jta}, configure.cli): a connection taken inside the caller's
 * transaction is enlisted in it. The example's imports take their attempt inside a {@code @Transactional} method
 * that then rolls back (an invalid project): the attempt must stay counted, in the store, not in the fallback. The
 * server has its default managed executor (the ee subsystem of standalone-microprofile.xml), on which the library
 * makes the calls of a caller inside a transaction (docs/stores.md#the-datasource).
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyJtaDataSourceIT {

    private static PostgresSchema schema;

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        schema = PostgresSchema.create("rl_wildfly_jta");
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + "ratelimiter.backend=postgres\n"
                + "ratelimiter.postgres.datasource=java:jboss/datasources/ratelimiter-jta\n"
                + "ratelimiter.postgres.timeout=PT1S\n"
                + "ratelimiter.postgres.table=" + schema.name() + ".rate_limit_counters\n");
    }

    @AfterAll
    static void dropSchema() {
        if (schema != null) {
            schema.close();
        }
    }

    @Test
    @DisplayName("three imports that take their attempt and roll back their transaction stay counted in PostgreSQL: "
            + "the fourth is 429, the row holds the three, no fallback decided, readiness ok")
    void rolledBackAttemptsStayCounted() throws Exception {
        ExampleApi client = ExampleApi.newClient(root());
        String workspace = "ws-" + UUID.randomUUID();
        String invalid = "[{\"id\": \"demo\", \"name\": \"Demo\"}, {\"id\": \"Not Valid!\", \"name\": \"x\"}]";
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> rolledBack = client.postJson("api/workspaces/" + workspace + "/imports", invalid);
            assertThat(rolledBack.statusCode()).as("attempt %d, rolled back", i).isEqualTo(422);
        }

        HttpResponse<String> refused = client.postJson("api/workspaces/" + workspace + "/imports",
                "[{\"id\": \"demo\", \"name\": \"Demo\"}]");

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        assertThat(schema.counters("imports")).as("rows of bucket imports, highest count").containsExactly(1, 3);
        JsonObject check = readinessCheck();
        assertThat(check.getJsonObject("data").getString("state")).isEqualTo("ok");
        assertThat(check.getJsonObject("data").getJsonNumber("fallbacks").longValueExact()).isZero();
    }

    private URI root() {
        return ExampleDeployments.loopback(deployment);
    }

    private JsonObject readinessCheck() {
        HttpResponse<String> response = ExampleApi.newClient(root()).get(WildFlyManagement.readiness());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return ExampleApi.json(response).getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(check -> check.getString("name").equals("rate-limiter")).findFirst().orElseThrow();
    }
}
