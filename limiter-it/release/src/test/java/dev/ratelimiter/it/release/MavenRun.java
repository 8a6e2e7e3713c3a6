package dev.ratelimiter.it.release;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Maven build in a process of its own, its output in a log file: the release through the checkout's wrapper, or
 * a walkthrough's application through the system Maven ({@link SystemMaven}). Never offline: the deploy plugin
 * refuses to deploy then, even to a file repository.
 */
final class MavenRun {

    private static final long TIMEOUT_MINUTES = 15;

    private MavenRun() {
    }

    /**
     * Runs {@code mvnw args} in {@code directory} with a local repository of its own, backed read-only by the
     * user's (Maven 3.9's {@code maven.repo.local.tail}), so nothing it resolves or installs reaches the shared
     * {@code ~/.m2} and it downloads only what the user's lacks.
     *
     * @param wrapper         the {@code mvnw} script to run
     * @param localRepository this build's own local repository
     * @param environment     variables to set for the build, over this process's (such as {@code PATH})
     * @param log             where its output goes
     * @return its exit code
     * @throws IllegalStateException if it does not end within 15 minutes
     */
    static int wrapper(Path wrapper, Path directory, Path localRepository, Map<String, String> environment,
                       Path log, List<String> args) {
        List<String> command = new ArrayList<>(List.of(wrapper.toString(), "-B", "-ntp",
                "-Dmaven.repo.local=" + localRepository,
                "-Dmaven.repo.local.tail=" + System.getProperty("release.localRepository")));
        command.addAll(args);
        return run(command, directory, environment, log);
    }

    /**
     * Runs {@code command} in {@code directory} and waits for it.
     *
     * @return its exit code
     * @throws IllegalStateException if it does not end within 15 minutes (it is killed then)
     */
    static int run(List<String> command, Path directory, Map<String, String> environment, Path log) {
        Process process = start(command, directory, environment, log);
        try {
            if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " did not end within " + TIMEOUT_MINUTES
                        + " minutes; see " + log);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts {@code command} in {@code directory}, its output (and errors) written to {@code log}. */
    static Process start(List<String> command, Path directory, Map<String, String> environment, Path log) {
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().putAll(environment);
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last 60 lines of a log, for an assertion's message. */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
