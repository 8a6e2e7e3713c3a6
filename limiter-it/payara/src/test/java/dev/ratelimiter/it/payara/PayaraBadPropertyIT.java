package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleDeployments;
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

/** A bad property fails the deployment, and the server log names the property and what is wrong with it. */
@ExtendWith(ArquillianExtension.class)
class PayaraBadPropertyIT {

    private static ConsoleCapture console;

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        console = ConsoleCapture.start();
        return ExampleDeployments.example(ExampleDeployments.BAD_PROPERTIES);
    }

    @Test
    @DisplayName("a window under a second and an unknown backend fail the deployment, each naming its property")
    void badPropertiesFailDeployment() throws IOException, InterruptedException {
        assertThat(ExampleDeployments.status(deployment, "api/projects")).as("the application is not deployed")
                .isEqualTo(404);
        assertThat(console.text()).contains("CDI deployment failure:")
                .contains(ExampleDeployments.BAD_PROPERTY_MESSAGES);
    }
}
