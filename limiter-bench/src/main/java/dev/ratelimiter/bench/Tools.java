package dev.ratelimiter.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs the stores' own command-line tools. */
final class Tools {

    private Tools() {
    }

    /**
     * Runs {@code command} to its end.
     *
     * @return what it printed (standard output and error)
     * @throws IllegalStateException with its output if it exits with a non-zero status
     */
    static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue()
                    + ": " + output);
        }
        return output;
    }

    /**
     * The first line of what {@code command} prints, such as a version, whatever its exit status ({@code wrk
     * --version} exits with 1).
     */
    static String firstLine(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor();
            return output.lines().findFirst().orElse("").trim();
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
