package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.LiveLimitsScenarios;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;

/** Live limits (docs/live-limits.md) on WildFly: the reload reads WildFly's MicroProfile Config (SmallRye). */
@ExtendWith(ArquillianExtension.class)
class WildFlyLiveLimitsIT extends LiveLimitsScenarios {

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n" + CONFIG);
    }

    @Override
    protected URI baseUri() {
        return ExampleDeployments.loopback(deployment);
    }

    @Override
    protected String readinessPath() {
        return WildFlyManagement.readiness();
    }
}
