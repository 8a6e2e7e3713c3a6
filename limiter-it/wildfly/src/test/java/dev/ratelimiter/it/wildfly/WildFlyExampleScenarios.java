package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleApiScenarios;
import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;

/**
 * The example API's scenarios as WildFly serves them, for this module's classes, which each add their deployment (an
 * Arquillian {@code @Deployment} method) and backend: the application at the deployment's loopback URL, readiness
 * and metrics on the management interface ({@link WildFlyManagement}), and RESTEasy answering {@code OPTIONS} itself.
 */
@ExtendWith(ArquillianExtension.class)
abstract class WildFlyExampleScenarios extends ExampleApiScenarios {

    @ArquillianResource
    URL deployment;

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
