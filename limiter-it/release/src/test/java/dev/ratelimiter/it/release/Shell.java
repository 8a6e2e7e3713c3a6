package dev.ratelimiter.it.release;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The shell commands the walkthroughs run as the page's reader does: bash, redis-cli. */
final class Shell {

    private Shell() {
    }

    /**
     * What {@code bash -c command} prints (standard error too), stripped, with {@code environment} added to this
     * process's.
     *
     * @throws AssertionError if it exits with another status than 0
     */
    static String bash(String command, Map<String, String> environment) throws IOException {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            assertThat(process.waitFor()).as("bash -c %s:\n%s", command, printed).isZero();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return printed;
    }

    /** What {@code redis-cli -p <port> args} prints, stripped. */
    static String redisCli(int port, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-p", String.valueOf(port)));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }
}
