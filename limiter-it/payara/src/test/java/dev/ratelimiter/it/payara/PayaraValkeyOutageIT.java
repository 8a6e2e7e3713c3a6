package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.internal.valkey.RedisServer;
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
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An outage on a real server: the example on Payara Micro counts in a {@code redis-server} of this test's own,
 * which is killed while requests flow and then restarted. The global buckets fall back; {@code login} is made
 * fail-closed for this deployment, so it answers its documented 503.
 */
@ExtendWith(ArquillianExtension.class)
class PayaraValkeyOutageIT {

    private static RedisServer valkey;

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        valkey = RedisServer.start();
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
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

    private URI root() {
        return ExampleDeployments.loopback(deployment);
    }

    @Test
    @DisplayName("killed while requests flow: no 5xx on fallback buckets, 503 temporary-reduced-capacity on the fail-closed one, readiness degraded, fallbacks on /metrics; restarted: ok again")
    void killedAndRestarted() {
        ExampleApi client = ExampleApi.newClient(root());
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

    private String state() {
        JsonObject health = ExampleApi.json(ExampleApi.newClient(root()).get("health/ready"));
        return health.getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(check -> check.getString("name").equals("rate-limiter")).findFirst().orElseThrow()
                .getJsonObject("data").getString("state");
    }
}
