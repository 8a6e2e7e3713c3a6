package dev.ratelimiter.internal.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A {@code pgbouncer} process of the test's own (the Debian package's, 1.18 here) on a free loopback port in front
 * of one database, with its default settings except the pool mode, the server pool's size, and what a test setup
 * needs (no authentication of its own, no Unix socket). In foreground, as the {@code postgres} user when the tests
 * run as root (PgBouncer refuses root); its log goes to {@code pgbouncer.log} in its own temporary directory.
 */
final class PgBouncer implements AutoCloseable {

    /** PgBouncer's {@code pool_mode}. */
    enum PoolMode { SESSION, TRANSACTION }

    private final Path directory;
    private final int port;
    private final Process process;

    private PgBouncer(Path directory, int port, Process process) {
        this.directory = directory;
        this.port = port;
        this.process = process;
    }

    /**
     * @param database   the database clients name, and PgBouncer passes on
     * @param serverPort PostgreSQL's port on 127.0.0.1
     * @param mode       the pool mode
     * @param serverPool server connections per user and database ({@code default_pool_size}, 20 by default): small
     *                   values make clients' transactions change server connections often
     */
    static PgBouncer start(String database, int serverPort, PoolMode mode, int serverPool) {
        try {
            int port = PostgresCluster.freePort();
            Path directory = Files.createTempDirectory("ratelimiter-pgbouncer-");
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path configuration = directory.resolve("pgbouncer.ini");
            Files.writeString(configuration, String.join("\n",
                    "[databases]",
                    database + " = host=127.0.0.1 port=" + serverPort + " dbname=" + database + " user=postgres",
                    "[pgbouncer]",
                    "listen_addr = 127.0.0.1",
                    "listen_port = " + port,
                    "unix_socket_dir =",
                    "auth_type = any",
                    "pool_mode = " + mode.name().toLowerCase(java.util.Locale.ROOT),
                    "default_pool_size = " + serverPool,
                    ""), StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(configuration, PosixFilePermissions.fromString("rw-r--r--"));
            List<String> command = new ArrayList<>();
            if (PostgresCluster.asRoot()) {
                command.addAll(List.of("runuser", "-u", "postgres", "--"));
            }
            command.addAll(List.of("pgbouncer", configuration.toString()));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(directory.resolve("pgbouncer.log").toFile()).start();
            PgBouncer bouncer = new PgBouncer(directory, port, process);
            try {
                await().atMost(Duration.ofSeconds(15)).ignoreExceptions()
                        .failFast("pgbouncer exited", () -> !process.isAlive())
                        .until(() -> {
                            try (Socket socket = new Socket("127.0.0.1", port)) {
                                return socket.isConnected();
                            }
                        });
            } catch (RuntimeException | Error e) {
                bouncer.close();
                throw new IllegalStateException("pgbouncer did not start: " + bouncer.log(), e);
            }
            return bouncer;
        } catch (IOException e) {
            throw new UncheckedIOException("pgbouncer could not start (is the pgbouncer package installed?)", e);
        }
    }

    int port() {
        return port;
    }

    /** What it logged so far, for failure messages. */
    String log() {
        try {
            Path log = directory.resolve("pgbouncer.log");
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            // runuser passes SIGTERM on; PgBouncer ends its connections and exits.
            process.destroy();
            await().atMost(Duration.ofSeconds(10)).until(() -> !process.isAlive());
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
