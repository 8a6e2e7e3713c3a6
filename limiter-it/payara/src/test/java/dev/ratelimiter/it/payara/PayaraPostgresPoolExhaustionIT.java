package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.PostgresSchema;
import jakarta.json.JsonObject;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A server's pool exhausted by the application's own traffic, on Payara Micro: the example's PostgreSQL pool
 * ({@link PayaraPool}: 8 connections, Payara's default wait of 60 s for a free one) is shared by the rate limiter
 * and by the application, whose {@link PoolHolderServlet} holds all 8. Every decision must still be bounded by the
 * library's deadline (100 ms; the bound asserted is generous) and answered by the outage policy, and counting in
 * PostgreSQL must resume once the application gives its connections back.
 */
@ExtendWith(ArquillianExtension.class)
class PayaraPostgresPoolExhaustionIT {

    private static final int POOL = 8;
    private static final Duration BOUND = Duration.ofSeconds(2); // 20 x the deadline; Payara would wait 60 s

    // Made by the deployment method, which Arquillian calls before anything of the class runs.
    private static PostgresSchema schema;

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        schema = PostgresSchema.create("rl_payara_exhaustion");
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n" + PayaraPool.config())
                .addAsWebInfResource(new StringAsset(PayaraPool.glassfishResources(schema)),
                        "glassfish-resources.xml")
                .addClass(PoolHolderServlet.class);
    }

    @AfterAll
    static void dropSchema() {
        if (schema != null) {
            schema.close();
        }
    }

    private URI root() {
        return ExampleDeployments.loopback(deployment);
    }

    @Test
    @DisplayName("the application holds all 8 connections of the shared pool: 30 requests each answered within 2 s by the fallback (200), readiness degraded naming the wait; given back: ok again and counted in PostgreSQL")
    void poolHeldByTheApplication() throws Exception {
        ExampleApi client = ExampleApi.newClient(root());
        assertThat(client.get("api/projects").statusCode()).isEqualTo(200);
        assertThat(schema.counters("api-anonymous")[0]).as("counted in PostgreSQL").isEqualTo(1);
        assertThat(readiness().getString("state")).isEqualTo("ok");

        assertThat(holder("POST", "?connections=" + POOL)).isEqualTo(String.valueOf(POOL));
        try {
            for (int i = 0; i < 30; i++) {
                long start = System.nanoTime();
                HttpResponse<String> response = client.get("api/projects");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("request %d", i).isLessThan(BOUND);
                assertThat(response.statusCode()).as("request %d", i).isEqualTo(200);
            }
            JsonObject degraded = readiness();
            assertThat(degraded.getString("state")).isEqualTo("degraded");
            assertThat(degraded.getString("lastError")).contains("no free connection");
            assertThat(schema.counters("api-anonymous")[1]).as("nothing counted in PostgreSQL meanwhile")
                    .isEqualTo(1);
        } finally {
            holder("DELETE", "");
        }

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> readiness().getString("state").equals("ok"));
        assertThat(client.get("api/projects").statusCode()).isEqualTo(200);
        assertThat(schema.counters("api-anonymous")[1]).as("counted in PostgreSQL again").isEqualTo(2);
    }

    private JsonObject readiness() {
        HttpResponse<String> response = ExampleApi.newClient(root()).get("health/ready");
        return ExampleApi.json(response).getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(check -> check.getString("name").equals("rate-limiter")).findFirst().orElseThrow()
                .getJsonObject("data");
    }

    private String holder(String method, String query) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        root().resolve("it/pool-holder" + query)).timeout(Duration.ofSeconds(90))
                        .method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s it/pool-holder: %s", method, response.body()).isEqualTo(200);
        return response.body();
    }
}
