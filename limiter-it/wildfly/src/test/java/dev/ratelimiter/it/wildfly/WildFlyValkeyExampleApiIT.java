package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.testing.TestServers;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.util.Map;
import java.util.UUID;

/**
 * The example API's scenarios, every one, on WildFly 39 on Valkey (the server TestServers names), with
 * its own key prefix; readiness and metrics on the management interface
 * ({@link WildFlyManagement}).
 */
class WildFlyValkeyExampleApiIT extends WildFlyExampleScenarios {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + "ratelimiter.backend=valkey\n"
                + "ratelimiter.valkey.url=" + TestServers.valkeyUrl() + "\n"
                + "ratelimiter.valkey.key-prefix=rl-wildfly-" + UUID.randomUUID().toString().substring(0, 8) + ":\n");
    }

    @Override
    protected String backend() {
        return "valkey";
    }

    @Override
    protected Map<String, String> scenariosNotRun() {
        return runOnly(ON_A_SHARED_STORE, Map.of());
    }
}
