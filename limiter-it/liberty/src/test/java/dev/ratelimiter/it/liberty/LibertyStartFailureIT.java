package dev.ratelimiter.it.liberty;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.MisconfiguredService;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts that must fail on Open Liberty, each with the library's messages in the server's log and no "ready": bad
 * properties, a secret whose variable is not set, and startup validation of the bindings.
 *
 * <p>Liberty fires the CDI {@code Startup} event from a servlet context listener: the observer's exception is
 * logged and the application is "not started" (CWWKZ0012I), not failed (CWWKZ0002E). The Arquillian adapter would
 * report that only once its {@code appDeployTimeout} ran out, so each application is deployed as a
 * {@link ConfiguredApplication} on the server Arquillian started, and its outcome read from messages.log as soon as
 * it is logged. Each has a name of its own, never started before in this server.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class LibertyStartFailureIT {

    @Test
    @DisplayName("a window under a second and an unknown backend fail the deployment, each naming its property")
    void badPropertiesFailDeployment() {
        assertNotStarted("bad-property", ExampleDeployments.example("bad-property.war",
                ExampleDeployments.BAD_PROPERTIES), ExampleDeployments.BAD_PROPERTY_MESSAGES);
    }

    @Test
    @DisplayName("an unset ${RATE_LIMIT_KEY_SECRET} fails the deployment naming ratelimiter.key-secret; never 'ready'")
    void unresolvedSecretFailsDeployment() {
        assertThat(System.getenv(ExampleDeployments.SECRET_VARIABLE)).as("the variable is unset").isNull();
        assertNotStarted("unresolved-secret", ExampleDeployments.example("unresolved-secret.war",
                ExampleDeployments.UNRESOLVED_SECRET), ExampleDeployments.UNRESOLVED_SECRET_MESSAGES);
    }

    @Test
    @DisplayName("an unknown bucket and a non-string key fail the deployment with messages naming the methods")
    void misconfigurationFailsDeployment() {
        assertNotStarted("misconfigured", ExampleDeployments.example("misconfigured.war", "")
                .addClass(MisconfiguredService.class), ExampleDeployments.MISCONFIGURED_MESSAGES);
    }

    /** Deploys {@code archive} as {@code name}: not started, the log names every message, and never "ready". */
    private static void assertNotStarted(String name, WebArchive archive, List<String> messages) {
        try (ConfiguredApplication application = ConfiguredApplication.deploy(name, archive, "")) {
            assertThat(application.started()).as("%s started", name).isFalse();
            assertThat(application.log()).contains("CWWKZ0012I: The application " + name + " was not started.")
                    .contains(messages).doesNotContain(ExampleDeployments.READY);
        }
    }
}
