package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApiScenarios;
import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;

/**
 * The example API's scenarios on a Payara Micro instance of their own, which the Arquillian adapter starts for the
 * deployment, for this module's classes whose application differs from every other (a listed {@code Application},
 * a store of their own): each adds its deployment (an Arquillian {@code @Deployment} method) and backend. The
 * application is served at {@code /}, readiness at {@code health/ready} and metrics at {@code metrics}, the
 * scenarios' defaults.
 */
@ExtendWith(ArquillianExtension.class)
abstract class PayaraExampleScenarios extends ExampleApiScenarios {

    @ArquillianResource
    URL deployment;

    @Override
    protected URI baseUri() {
        return ExampleDeployments.loopback(deployment);
    }
}
