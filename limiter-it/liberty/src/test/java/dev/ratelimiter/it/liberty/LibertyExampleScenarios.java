package dev.ratelimiter.it.liberty;

import dev.ratelimiter.it.ExampleApiScenarios;
import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;

/**
 * The example API's scenarios as Open Liberty serves them, for the scenario classes of this module and of
 * limiter-it/liberty-mp7, which each add their deployment (an Arquillian {@code @Deployment} method) and backend: the
 * application at the deployment's loopback URL, readiness and metrics at the scenarios' default paths, and RESTEasy
 * answering {@code OPTIONS} itself.
 */
@ExtendWith(ArquillianExtension.class)
public abstract class LibertyExampleScenarios extends ExampleApiScenarios {

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
}
