package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApiScenarios;
import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;

/**
 * The example's scenarios on Payara Micro with an {@code Application} whose {@code getClasses()} turns scanning
 * off and lists {@code RateLimiterFeature}: limited exactly like the example.
 */
@ExtendWith(ArquillianExtension.class)
class PayaraListedApplicationIT extends ExampleApiScenarios {

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.listed("ratelimiter.trusted-proxies=127.0.0.1,::1\n");
    }

    @Override
    protected URI baseUri() {
        return ExampleDeployments.loopback(deployment);
    }
}
