package dev.ratelimiter.it.wildfly;

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
 * The example API's scenarios on WildFly with an {@code Application} whose {@code getClasses()} lists the
 * library's feature and turns RESTEasy's scanning off ({@code ListedApplication}).
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyListedApplicationIT extends ExampleApiScenarios {

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

    /** RESTEasy answers OPTIONS for a resource without an {@code @OPTIONS} method before post-matching filters. */
    @Override
    protected boolean optionsReachFilters() {
        return false;
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
