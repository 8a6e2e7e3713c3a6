package dev.ratelimiter.it.release;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Maven a new user has: the {@code mvn} found on the PATH (Debian 12's package {@code maven} is 3.8.7), which
 * the walkthroughs of {@code docs/servers.md#a-new-quarkus-application} tell the reader to build with, not this
 * checkout's wrapper (Maven 3.9). A walkthrough that only builds with 3.9 must fail here.
 */
final class SystemMaven {

    private final Path executable;

    private SystemMaven(Path executable) {
        this.executable = executable;
    }

    /**
     * The {@code mvn} first on the PATH.
     *
     * @throws IllegalStateException if there is none, naming the Debian package that provides it
     */
    static SystemMaven onPath() {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        return new SystemMaven(Stream.of(path.split(java.io.File.pathSeparator))
                .filter(directory -> !directory.isEmpty())
                .map(directory -> Path.of(directory, "mvn"))
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No mvn on the PATH (" + path + "): the release test "
                        + "builds the walkthroughs with the system Maven, as a reader does; install it (Debian: "
                        + "apt-get install maven)")));
    }

    /**
     * What {@code mvn --version} prints (Maven's version, its home and the JDK it runs on).
     *
     * @throws IllegalStateException if it does not answer within a minute or exits with an error
     */
    String version() {
        try {
            Process process = new ProcessBuilder(executable.toString(), "-B", "--version")
                    .redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(1, TimeUnit.MINUTES) || process.exitValue() != 0) {
                throw new IllegalStateException(executable + " --version failed:\n" + output);
            }
            return output.replaceAll("\u001B\\[[0-9;]*m", "").strip(); // Maven 3.8 colours even with -B
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The command line {@code mvn -B -ntp args} for {@code app} as a walkthrough builds it: with {@code
     * localRepository} (the user's), and the release's file repository {@code repository} added by a settings file
     * written in the application's directory.
     */
    List<String> command(Path app, Path repository, Path localRepository, List<String> args) throws IOException {
        Path settings = app.resolve("release-settings.xml");
        Files.writeString(settings, """
                <settings>
                  <profiles>
                    <profile>
                      <id>release-test</id>
                      <repositories>
                        <repository>
                          <id>release-test</id>
                          <url>%s</url>
                        </repository>
                      </repositories>
                    </profile>
                  </profiles>
                  <activeProfiles><activeProfile>release-test</activeProfile></activeProfiles>
                </settings>
                """.formatted(repository.toUri()));
        List<String> all = new ArrayList<>(List.of("-s", settings.toString(), "-Dmaven.repo.local=" + localRepository));
        all.addAll(args);
        return command(all);
    }

    /** The command line {@code mvn -B -ntp args}, batch mode and no transfer progress, for a log file. */
    List<String> command(List<String> args) {
        List<String> command = new ArrayList<>(List.of(executable.toString(), "-B", "-ntp"));
        command.addAll(args);
        return command;
    }
}
