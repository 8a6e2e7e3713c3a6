package dev.ratelimiter.it.wildfly;

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
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An outage on WildFly, as {@code Payara7ValkeyExampleApiIT#killedAndRestarted} on Payara 7: the example counts in a {@code redis-server} of
 * this test's own, killed while requests flow and then restarted; {@code login} is fail-closed for this
 * deployment. Readiness and the fallbacks' series are read where WildFly serves them, on the management interface.
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyValkeyOutageIT {

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

    @Test
    @DisplayName("killed while requests flow: 200 on the fallback bucket, 503 on the fail-closed one, /health/ready "
            + "degraded, fallbacks and the degraded flag on "
            + "/prometheus; restarted: ok again")
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
        assertThat(client.login(account, "wrong").statusCode()).as("fail-closed bucket").isEqualTo(503);
        assertThat(client.get(WildFlyManagement.prometheus()).body()).containsPattern(
                "rate_limiter_fallbacks_total\\{[^}]*bucket=\"api-anonymous\"[^}]*} [1-9]")
                .containsPattern("rate_limiter_degraded\\{[^}]*backend=\"valkey\"[^}]*} 1");

        valkey.restart();

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> state().equals("ok"));
        assertThat(client.login(account, "wrong").statusCode()).as("counting in Valkey again").isEqualTo(401);
    }

    private URI root() {
        return ExampleDeployments.loopback(deployment);
    }

    private String state() {
        JsonObject health = ExampleApi.json(ExampleApi.newClient(root()).get(WildFlyManagement.readiness()));
        return health.getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(check -> check.getString("name").equals("rate-limiter")).findFirst().orElseThrow()
                .getJsonObject("data").getString("state");
    }
}
