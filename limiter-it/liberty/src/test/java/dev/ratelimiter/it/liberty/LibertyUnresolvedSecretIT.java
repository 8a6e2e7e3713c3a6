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

/**
 * {@code ratelimiter.key-secret=${RATE_LIMIT_KEY_SECRET}} with the variable unset fails the deployment on Open
 * Liberty, naming the property; see {@link LibertyStartupValidationIT} for how a failed deployment is read.
 */
@ExtendWith(ArquillianExtension.class)
class LibertyUnresolvedSecretIT {

    private static ServerLog log;

    @Deployment(testable = false)
    @ShouldThrowException(DeploymentException.class)
    static WebArchive deployment() {
        log = ServerLog.mark();
        return ExampleDeployments.example("unresolved-secret.war", ExampleDeployments.UNRESOLVED_SECRET);
    }

    @Test
    @DisplayName("an unset ${RATE_LIMIT_KEY_SECRET} fails the deployment naming ratelimiter.key-secret; never 'ready'")
    void unresolvedSecretFailsDeployment() {
        assertThat(System.getenv(ExampleDeployments.SECRET_VARIABLE)).as("the variable is unset").isNull();
        assertThat(log.text()).contains("CWWKZ0012I: The application unresolved-secret was not started.")
                .contains(ExampleDeployments.UNRESOLVED_SECRET_MESSAGES)
                .doesNotContain(ExampleDeployments.READY);
    }
}
