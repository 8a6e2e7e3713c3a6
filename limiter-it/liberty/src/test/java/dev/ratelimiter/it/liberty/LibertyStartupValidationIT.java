package dev.ratelimiter.it.liberty;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.MisconfiguredService;
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
 * A misconfigured application does not start on Open Liberty, and the server log says why, naming each method.
 *
 * <p>Liberty fires the CDI {@code Startup} event from a servlet context listener: the observer's exception is
 * logged and the application is "not started" (CWWKZ0012I), not failed (CWWKZ0002E). The adapter recognises only
 * the latter, so it reports a {@code DeploymentException} without a cause once {@code appDeployTimeout} has run
 * out; the reason is read from messages.log. The archive has a name of its own, never started before in this
 * server, or the adapter would match an earlier start of that name.
 */
@ExtendWith(ArquillianExtension.class)
class LibertyStartupValidationIT {

    private static ServerLog log;

    @Deployment(testable = false)
    @ShouldThrowException(DeploymentException.class)
    static WebArchive deployment() {
        log = ServerLog.mark();
        return ExampleDeployments.example("misconfigured.war", "").addClass(MisconfiguredService.class);
    }

    @Test
    @DisplayName("an unknown bucket and a non-string key fail the deployment with messages naming the methods")
    void misconfigurationFailsDeployment() {
        assertThat(log.text()).contains("CWWKZ0012I: The application misconfigured was not started.")
                .contains(ExampleDeployments.MISCONFIGURED_MESSAGES);
    }
}
