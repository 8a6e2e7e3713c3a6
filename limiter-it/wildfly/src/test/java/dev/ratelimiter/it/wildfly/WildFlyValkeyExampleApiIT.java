package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleApiScenarios;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.testing.TestServers;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;
import java.util.UUID;

/**
 * The example API's scenarios, every one, on WildFly 39 on Valkey (the server TestServers names), with
 * its own key prefix; readiness and metrics on the management interface
 * ({@link WildFlyManagement}).
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyValkeyExampleApiIT extends ExampleApiScenarios {

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + "ratelimiter.backend=valkey\n"
                + "ratelimiter.valkey.url=" + TestServers.valkeyUrl() + "\n"
                + "ratelimiter.valkey.key-prefix=rl-wildfly-" + UUID.randomUUID().toString().substring(0, 8) + ":\n");
    }

    @Override
    protected URI baseUri() {
        return ExampleDeployments.loopback(deployment);
    }

    /** RESTEasy answers OPTIONS for a resource without an {@code @OPTIONS} method before post-matching filters. */
    @Override
    protected boolean optionsReachFilters() {
        return false;
    }

    @Override
    protected String backend() {
        return "valkey";
    }

    @Override
    protected String readinessPath() {
        return WildFlyManagement.readiness();
    }

    @Override
    protected String metricsPath() {
        return WildFlyManagement.prometheus();
    }
}
