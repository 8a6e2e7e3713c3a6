package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApi;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * A Payara Micro instance the test starts itself (not through Arquillian, which starts one per deployment): on a
 * free port, not clustered, its output in a log file beside the first application.
 */
final class MicroInstance implements AutoCloseable {

    /** What Payara Micro prints once its start, with the deployments given, is over. */
    private static final Pattern READY = Pattern.compile("Payara Micro \\S+ \\(build \\d+\\) ready in ");

    private final Process process;
    private final URI root;
    private final Path log;

    private MicroInstance(Process process, URI root, Path log) {
        this.process = process;
        this.root = root;
        this.log = log;
    }

    /**
     * Starts an instance deploying {@code application} (a WAR or an exploded one) at the root context; returns
     * without waiting for it.
     *
     * @param options more Payara Micro options
     */
    static MicroInstance start(Path application, String... options) {
        List<String> more = new ArrayList<>(List.of("--contextroot", "/"));
        more.addAll(List.of(options));
        return start(List.of(application), more);
    }

    /**
     * Starts an instance deploying every one of {@code applications}, each at the context root its file name gives
     * ({@code ROOT.war} at {@code /}, {@code valkey.war} at {@code /valkey}); returns without waiting for it.
     */
    static MicroInstance startAll(List<Path> applications) {
        return start(applications, List.of());
    }

    /**
     * Exports {@code applications} (file name, such as {@code ROOT.war}, to archive) to a directory of their own,
     * starts an instance deploying them all ({@link #startAll}) and waits until it is ready ({@link #awaitReady});
     * kills it when it does not get ready.
     */
    static MicroInstance deployAll(Map<String, WebArchive> applications) {
        MicroInstance instance = startAll(export(applications));
        try {
            instance.awaitReady();
        } catch (RuntimeException e) {
            // Nobody else holds the instance yet to stop it.
            try {
                instance.close();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            throw e;
        }
        return instance;
    }

    /** Exports {@code applications} (file name to archive) to a new directory; returns the files. */
    static List<Path> export(Map<String, WebArchive> applications) {
        try {
            Path directory = Files.createTempDirectory("ratelimiter-payara-");
            List<Path> files = new ArrayList<>();
            applications.forEach((name, archive) -> {
                Path file = directory.resolve(name);
                archive.as(ZipExporter.class).exportTo(file.toFile(), true);
                files.add(file);
            });
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until Payara Micro says it is ready (every deployment tried, failed or not) and its readiness endpoint
     * answers 200 (every application deployed is ready). Up to 5 minutes, not Arquillian's 3 for one application: an
     * instance here may deploy three, and {@link PayaraTwoInstancesIT} starts two at once (on a 2-core machine
     * shared with other builds, two such starts were seen to outlast 3 minutes).
     */
    void awaitReady() {
        await("Payara Micro at " + root).atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(500))
                .ignoreExceptions().until(() -> READY.matcher(log()).find()
                        && ExampleApi.newClient(root).get("health/ready").statusCode() == 200);
    }

    private static MicroInstance start(List<Path> applications, List<String> options) {
        try {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            // C1 only, as in arquillian.xml: no test measures an instance's speed, and C1 alone starts one about a
            // quarter sooner (the example ready in 9.1 s against 12.0 s), for CI's 30-minute budget.
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                    "-XX:TieredStopAtLevel=1", "-jar", System.getProperty("payara.microJar")));
            for (Path application : applications) {
                command.addAll(List.of("--deploy", application.toString()));
            }
            command.addAll(List.of("--port", String.valueOf(port), "--nocluster"));
            command.addAll(options);
            Path log = applications.get(0).resolveSibling("payara-" + port + ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            return new MicroInstance(process, URI.create("http://127.0.0.1:" + port + "/"), log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The server's root ({@code http://127.0.0.1:port/}). */
    URI root() {
        return root;
    }

    /** What the instance has printed so far (its server log). */
    String log() {
        try {
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills the instance and waits for it to end. */
    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }
}
