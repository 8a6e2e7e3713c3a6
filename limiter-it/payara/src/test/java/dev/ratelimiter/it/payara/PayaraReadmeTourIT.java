package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.docs.CurlTourScenarios;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;

/**
 * README.md#a-five-minute-tour, every command in page order, against the example as the page's first command
 * serves it.
 */
@ExtendWith(ArquillianExtension.class)
class PayaraReadmeTourIT extends CurlTourScenarios {

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.asBuilt();
    }

    @Override
    protected URI baseUri() {
        return ExampleDeployments.loopback(deployment);
    }

    @Override
    protected String page() {
        return "README.md";
    }

    @Override
    protected String section() {
        return "## A five-minute tour";
    }
}
