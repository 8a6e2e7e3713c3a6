package dev.ratelimiter.it.payara;

import dev.ratelimiter.internal.valkey.RedisServer;
import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import jakarta.json.JsonObject;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The example API's scenarios on Payara Micro 7 with the Valkey backend, then an outage on that real server: the
 * example counts in a {@code redis-server} of this test's own, which the last test kills while requests flow and
 * then restarts. The global buckets fall back; {@code login} is made fail-closed for this deployment, so it answers
 * its documented 503 (no scenario before the outage sees the difference: the policy applies to outages only).
 *
 * <p>The outage runs last ({@link Order}), since the scenarios before it check that nothing has fallen back yet
 * (metrics and readiness at zero fallbacks); it ends with the store back and readiness {@code ok}.
 *
 * <p>Payara Micro 6 (limiter-it/payara) runs the example API in memory and on PostgreSQL; this module runs it in
 * memory and on Valkey, so each store meets each Payara once (CONTRIBUTING.md#the-coverage-matrix).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class Payara7ValkeyExampleApiIT extends PayaraExampleScenarios {

    // Started by the deployment method, which Arquillian calls before anything of the class runs.
    private static RedisServer valkey;

    @Deployment(testable = false)
    static WebArchive deployment() {
        valkey = RedisServer.start();
        return ExampleDeployments.example(PayaraServers.TRUSTED
                + "ratelimiter.backend=valkey\n"
                + "ratelimiter.valkey.url=" + valkey.url() + "\n"
                + "ratelimiter.buckets.login.on-outage=fail-closed\n");
    }

    @AfterAll
    static void stopValkey() {
        if (valkey != null) {
            valkey.close();
        }
    }

    @Override
    protected String backend() {
        return "valkey";
    }

    @Test
    @Order(Integer.MAX_VALUE)
    @DisplayName("killed while requests flow: no 5xx on fallback buckets, 503 temporary-reduced-capacity on the fail-closed one, readiness degraded, fallbacks on /metrics; restarted: ok again")
    void killedAndRestarted() {
        ExampleApi client = ExampleApi.newClient(baseUri());
        String account = "outage-" + UUID.randomUUID();
        assertThat(client.get("api/projects").statusCode()).isEqualTo(200);
        assertThat(client.login(account, "wrong").statusCode()).isEqualTo(401);
        assertThat(state()).isEqualTo("ok");

        valkey.kill();

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            assertThat(client.get("api/projects").statusCode()).as("fallback bucket").isEqualTo(200);
            assertThat(state()).isEqualTo("degraded");
        });
        for (int i = 0; i < 20; i++) {
            assertThat(client.get("api/projects").statusCode()).as("fallback bucket, request %d", i).isEqualTo(200);
        }
        HttpResponse<String> closed = client.login(account, "wrong");
        assertThat(closed.statusCode()).as("fail-closed bucket").isEqualTo(503);
        assertThat(Long.parseLong(closed.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 30L);
        JsonObject problem = ExampleApi.json(closed);
        assertThat(problem.getString("type"))
                .isEqualTo("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");
        assertThat(problem.getString("title")).isEqualTo("Temporary Reduced Capacity");
        assertThat(problem.getInt("status")).isEqualTo(503);
        assertThat(problem.getJsonArray("violated-policies").getString(0)).isEqualTo("login");
        assertThat(problem.getString("bucket")).isEqualTo("login");
        assertThat(problem.getJsonNumber("retryAfter").longValueExact())
                .isEqualTo(Long.parseLong(closed.headers().firstValue("Retry-After").orElseThrow()));
        assertThat(client.get("metrics").body()).containsPattern(
                "rate_limiter_fallbacks_total\\{bucket=\"api-anonymous\"[^}]*} [1-9]");

        valkey.restart();

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> state().equals("ok"));
        assertThat(client.login(account, "wrong").statusCode()).as("counting in Valkey again").isEqualTo(401);
    }

    /** The rate-limiter readiness check's {@code state}. */
    private String state() {
        JsonObject health = ExampleApi.json(ExampleApi.newClient(baseUri()).get("health/ready"));
        return health.getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(check -> check.getString("name").equals("rate-limiter")).findFirst().orElseThrow()
                .getJsonObject("data").getString("state");
    }
}
