package dev.ratelimiter.it.liberty;

import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.container.spi.client.container.DeploymentException;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.ShouldThrowException;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/** A bad property fails the deployment on Open Liberty; see {@link LibertyStartupValidationIT} for how. */
@ExtendWith(ArquillianExtension.class)
class LibertyBadPropertyIT {

    private static ServerLog log;

    @Deployment(testable = false)
    @ShouldThrowException(DeploymentException.class)
    static WebArchive deployment() {
        log = ServerLog.mark();
        return ExampleDeployments.example("bad-property.war", ExampleDeployments.BAD_PROPERTIES);
    }

    @Test
    @DisplayName("a window under a second and an unknown backend fail the deployment, each naming its property")
    void badPropertiesFailDeployment() {
        assertThat(log.text()).contains("CWWKZ0012I: The application bad-property was not started.")
                .contains(ExampleDeployments.BAD_PROPERTY_MESSAGES);
    }
}
