package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.StoreOutageScenario;
import dev.ratelimiter.internal.valkey.RedisServer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URL;

/**
 * {@link StoreOutageScenario} on WildFly, as {@code Payara7ValkeyExampleApiIT#killedAndRestarted} runs it on
 * Payara 7: the example counts in a {@code redis-server} of this test's own, killed while requests flow and then
 * restarted. Readiness and the metrics are read where WildFly serves them, on the management interface.
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
                + StoreOutageScenario.onValkey(valkey.url()));
    }

    @AfterAll
    static void stopValkey() {
        if (valkey != null) {
            valkey.close();
        }
    }

    @Test
    @DisplayName("killed while requests flow: 200 on the fallback bucket, 503 on the fail-closed one, /health/ready "
            + "degraded, fallbacks and the degraded flag on /prometheus; restarted: ok again")
    void killedAndRestarted() {
        new StoreOutageScenario(ExampleDeployments.loopback(deployment), WildFlyManagement.readiness(),
                WildFlyManagement.prometheus()).killedAndRestarted(valkey::kill, valkey::restart);
    }
}
