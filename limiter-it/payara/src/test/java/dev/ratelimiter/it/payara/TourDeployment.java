package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.docs.CurlTour;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URL;

/**
 * The example as README.md's first command serves it (the WAR as built, at {@code /}), for a test that runs one of
 * the docs' curl tours against it ({@link CurlTour}). Each tour has a deployment of its own, since its counts (such
 * as {@code api-anonymous}'s attempts left) start from a fresh one, and the server's readiness path lists the
 * checks of every application deployed. The tours show Payara Micro's answers (its reason phrase {@code CUSTOM}),
 * so only this module runs them.
 */
@ExtendWith(ArquillianExtension.class)
abstract class TourDeployment {

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.asBuilt();
    }

    /** Runs the tour of {@code page} (relative to the checkout), or of its {@code section}, as written. */
    void assertTourAsWritten(String page, String section) {
        CurlTour.assertAnswersAsWritten(page, section, ExampleDeployments.loopback(deployment));
    }
}
