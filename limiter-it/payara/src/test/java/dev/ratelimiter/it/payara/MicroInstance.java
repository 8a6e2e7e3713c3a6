package dev.ratelimiter.it.payara;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Payara Micro instance the test starts itself (not through Arquillian, which starts one per deployment): the
 * application at the root context on a free port, not clustered, its output in a log file beside the application.
 */
final class MicroInstance implements AutoCloseable {

    private final Process process;
    private final URI root;

    private MicroInstance(Process process, URI root) {
        this.process = process;
        this.root = root;
    }

    /**
     * Starts an instance deploying {@code application} (a WAR or an exploded one); returns without waiting for it.
     *
     * @param options more Payara Micro options
     */
    static MicroInstance start(Path application, String... options) {
        try {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-jar",
                    System.getProperty("payara.microJar"), "--deploy", application.toString(), "--contextroot", "/",
                    "--port", String.valueOf(port), "--nocluster"));
            command.addAll(List.of(options));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(application.resolveSibling("payara-" + port + ".log").toFile()).start();
            return new MicroInstance(process, URI.create("http://127.0.0.1:" + port + "/"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The application's root. */
    URI root() {
        return root;
    }

    /** Kills the instance and waits for it to end. */
    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }
}
