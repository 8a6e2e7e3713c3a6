package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.MisconfiguredService;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Starts that must fail on WildFly, each with the library's message in the server's log and no "ready": bad
 * properties, a secret whose variable is not set, and startup validation of the bindings.
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyStartFailureIT {

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "bad-properties", managed = false, testable = false)
    static WebArchive badPropertiesDeployment() {
        return ExampleDeployments.example("bad-properties.war", ExampleDeployments.BAD_PROPERTIES);
    }

    @Deployment(name = "unresolved-secret", managed = false, testable = false)
    static WebArchive unresolvedSecretDeployment() {
        return ExampleDeployments.example("unresolved-secret.war", ExampleDeployments.UNRESOLVED_SECRET);
    }

    @Deployment(name = "misconfigured", managed = false, testable = false)
    static WebArchive misconfiguredDeployment() {
        return ExampleDeployments.example("misconfigured.war", "").addClass(MisconfiguredService.class);
    }

    @Test
    @DisplayName("a window under a second and an unknown backend fail the deployment, each naming its property")
    void badProperties() throws IOException {
        assertFailsWith("bad-properties", ExampleDeployments.BAD_PROPERTY_MESSAGES);
    }

    @Test
    @DisplayName("a secret given as ${RATE_LIMIT_KEY_SECRET}, unset, fails the deployment naming ratelimiter.key-secret")
    void unresolvedSecret() throws IOException {
        assertThat(System.getenv(ExampleDeployments.SECRET_VARIABLE)).isNull();
        assertFailsWith("unresolved-secret", ExampleDeployments.UNRESOLVED_SECRET_MESSAGES);
    }

    @Test
    @DisplayName("bindings startup validation refuses (unknown bucket, bad key parameter, unknown resolver, static "
            + "method) fail the deployment, each named")
    void misconfiguredBindings() throws IOException {
        assertFailsWith("misconfigured", ExampleDeployments.MISCONFIGURED_MESSAGES);
    }

    private void assertFailsWith(String name, List<String> messages) throws IOException {
        Path log = Path.of(System.getProperty("wildfly.home"), "standalone", "log", "server.log");
        long mark = Files.size(log);

        assertThatThrownBy(() -> deployer.deploy(name)).as("the deployment of %s", name)
                .hasStackTraceContaining("Rate limiter configuration is invalid");

        byte[] all = Files.readAllBytes(log);
        String logged = new String(all, (int) mark, all.length - (int) mark, StandardCharsets.UTF_8);
        assertThat(logged).contains(messages).doesNotContain(ExampleDeployments.READY);
    }
}
