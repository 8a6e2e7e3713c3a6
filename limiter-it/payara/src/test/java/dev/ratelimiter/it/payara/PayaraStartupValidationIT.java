package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.MisconfiguredService;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.URL;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A misconfigured application does not deploy, and the server log says why, naming each method and property.
 * (Payara Micro keeps running with nothing deployed and the adapter does not report the failure, so the test
 * checks that the API is absent and reads the reason from the server's console.)
 */
@ExtendWith(ArquillianExtension.class)
class PayaraStartupValidationIT {

    private static ConsoleCapture console;

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        console = ConsoleCapture.start();
        return ExampleDeployments.example("").addClass(MisconfiguredService.class);
    }

    @Test
    @DisplayName("an unknown bucket and a non-string key fail the deployment with messages naming the methods")
    void misconfigurationFailsDeployment() throws IOException, InterruptedException {
        assertThat(ExampleDeployments.status(deployment, "api/projects")).as("the application is not deployed")
                .isEqualTo(404);
        assertThat(console.text()).contains("CDI deployment failure:")
                .contains(ExampleDeployments.MISCONFIGURED_MESSAGES);
    }
}
