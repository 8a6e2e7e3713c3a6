package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.FallbackCarryScenario;
import dev.ratelimiter.internal.valkey.RedisServer;
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

/** {@link FallbackCarryScenario} on WildFly: Valkey, a {@code redis-server} of this test's own, killed in between. */
@ExtendWith(ArquillianExtension.class)
class WildFlyFallbackCarryIT {

    private static RedisServer valkey;

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        valkey = RedisServer.start();
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + "ratelimiter.backend=valkey\n"
                + "ratelimiter.valkey.url=" + valkey.url() + "\n"
                + FallbackCarryScenario.CONFIG);
    }

    @AfterAll
    static void stopValkey() {
        if (valkey != null) {
            valkey.close();
        }
    }

    @Test
    @DisplayName("what the store counted before the outage carries into the fallback: a locked account stays locked, "
            + "one with 2 attempts left gets at most 2")
    void carriedIntoFallback() {
        URI root = ExampleDeployments.loopback(deployment);
        FallbackCarryScenario scenario = FallbackCarryScenario.before(root);

        valkey.kill();

        scenario.assertCarried();
    }
}
