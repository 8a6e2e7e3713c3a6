package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.it.ExampleDeployments;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged Quarkus application refuses to start on a bad configuration, and says which properties are wrong:
 * the same check that fails a deployment on Payara and Open Liberty.
 */
class QuarkusStartFailureIT {

    @Test
    @DisplayName("a window under a second and an unknown backend stop the start, each named in the output")
    void badPropertiesStopTheStart() throws IOException {
        assertThat(failedStart(ExampleDeployments.BAD_PROPERTIES)).contains(ExampleDeployments.BAD_PROPERTY_MESSAGES)
                .doesNotContain(ExampleDeployments.READY);
    }

    @Test
    @DisplayName("an unset ${RATE_LIMIT_KEY_SECRET} stops the start naming ratelimiter.key-secret; never 'ready'")
    void unresolvedSecretStopsTheStart() throws IOException {
        assertThat(failedStart(ExampleDeployments.UNRESOLVED_SECRET))
                .contains(ExampleDeployments.UNRESOLVED_SECRET_MESSAGES).doesNotContain(ExampleDeployments.READY);
    }

    /**
     * Starts the packaged application with these properties (lines of {@code name=value}) as system properties
     * and the secret's variable removed from its environment; asserts it exits with a failure.
     *
     * @return what it printed
     */
    private static String failedStart(String properties) throws IOException {
        Path output = Files.createTempFile("quarkus-start-", ".log");
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + port));
        for (String line : properties.split("\n")) {
            command.add("-D" + line);
        }
        command.addAll(List.of("-jar", System.getProperty("quarkus.app.jar")));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().remove(ExampleDeployments.SECRET_VARIABLE);
        Process application = builder.start();
        try {
            await().atMost(Duration.ofMinutes(2)).until(() -> !application.isAlive());
            assertThat(application.exitValue()).as("exit code").isNotZero();
            return Files.readString(output);
        } finally {
            application.destroyForcibly();
        }
    }
}
