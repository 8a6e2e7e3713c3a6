package dev.ratelimiter.it.release;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Maven build in a process of its own, through the checkout's wrapper, its output in a log file. Each build gets
 * a local repository of its own, backed read-only by the user's (Maven's {@code maven.repo.local.tail}), so nothing
 * it resolves or installs reaches the shared {@code ~/.m2}, and it downloads only what the user's lacks. Never
 * offline: the deploy plugin refuses to deploy then, even to a file repository.
 */
final class MavenRun {

    private MavenRun() {
    }

    /**
     * Runs {@code mvnw args} in {@code directory} and returns its exit code.
     *
     * @param wrapper         the {@code mvnw} script to run
     * @param localRepository this build's own local repository
     * @param log             where its output goes
     * @throws IllegalStateException if it does not end within 10 minutes
     */
    static int run(Path wrapper, Path directory, Path localRepository, Path log, List<String> args) {
        List<String> command = new ArrayList<>(List.of(wrapper.toString(), "-B", "-ntp",
                "-Dmaven.repo.local=" + localRepository,
                "-Dmaven.repo.local.tail=" + System.getProperty("release.localRepository")));
        command.addAll(args);
        try {
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(10, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException("mvnw " + args + " did not end within 10 minutes; see " + log);
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The last lines of a log, for an assertion's message. */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
