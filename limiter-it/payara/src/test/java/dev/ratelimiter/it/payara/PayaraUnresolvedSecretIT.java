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

/** {@code ratelimiter.key-secret=${RATE_LIMIT_KEY_SECRET}} with the variable unset fails the deployment. */
@ExtendWith(ArquillianExtension.class)
class PayaraUnresolvedSecretIT {

    private static ConsoleCapture console;

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        console = ConsoleCapture.start();
        return ExampleDeployments.example(ExampleDeployments.UNRESOLVED_SECRET);
    }

    @Test
    @DisplayName("an unset ${RATE_LIMIT_KEY_SECRET} fails the deployment naming ratelimiter.key-secret; never 'ready'")
    void unresolvedSecretFailsDeployment() throws IOException, InterruptedException {
        assertThat(System.getenv(ExampleDeployments.SECRET_VARIABLE)).as("the variable is unset").isNull();
        assertThat(ExampleDeployments.status(deployment, "api/projects")).as("the application is not deployed")
                .isEqualTo(404);
        assertThat(console.text()).contains("CDI deployment failure:")
                .contains(ExampleDeployments.UNRESOLVED_SECRET_MESSAGES)
                .doesNotContain(ExampleDeployments.READY);
    }
}
