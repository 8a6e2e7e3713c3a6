package dev.ratelimiter.internal.postgres;

import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of the test's own ({@code initdb} and {@code pg_ctl} of the newest
 * {@code /usr/lib/postgresql/<version>/bin}), on a free loopback port, trust authentication for {@code postgres},
 * for tests that change the server's state (pause it, turn its sessions read-only, open more connections than the
 * shared server allows) where the shared server must stay as it is. Run as the {@code postgres} user when the tests
 * run as root (PostgreSQL refuses root). A machine without PostgreSQL's binaries fails the test.
 *
 * <p>One cluster per test JVM ({@link #database}): {@code initdb} is the slow part (seconds on a busy machine), and
 * test classes run one after another in a JVM, so a class that pauses the server or turns a database read-only puts
 * it back before the next class starts. Each class works in a database of its own, the migration applied to it,
 * dropped when the class closes its handle; the server stops when the JVM exits.
 */
final class PostgresCluster implements AutoCloseable {

    /** Room for a test's 50-connection pool beside a second process's and the server-side sessions of the rest. */
    private static final int MAX_CONNECTIONS = 300;

    private static PostgresCluster server;

    private final Path directory;
    private final Path data;
    private final int port;
    private final String database;

    private PostgresCluster(Path directory, int port, String database) {
        this.directory = directory;
        this.data = directory.resolve("data");
        this.port = port;
        this.database = database;
    }

    /**
     * A database of its own on this JVM's cluster (started on first use), made afresh with the library's migration
     * applied to its {@code public} schema. {@link #close()} drops it; the cluster stays for the next class.
     *
     * @param name a lowercase SQL identifier, unique among the test classes
     */
    static synchronized PostgresCluster database(String name) {
        if (server == null) {
            server = start();
            PostgresCluster started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "postgres-cluster-stop"));
        }
        server.resume(); // a class that failed while the server was paused must not stall the next
        server.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        server.execute("CREATE DATABASE " + name);
        PostgresCluster handle = new PostgresCluster(server.directory, server.port, name);
        Flyway.configure().dataSource(handle.url(), "postgres", "")
                .locations("classpath:db/ratelimiter/postgres").table("flyway_ratelimiter_history")
                .load().migrate();
        return handle;
    }

    /** Initialises and starts a cluster; its {@code postgres} database is for administration only. */
    private static PostgresCluster start() {
        try {
            Path directory = Files.createTempDirectory("ratelimiter-pg-");
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
            if (asRoot()) {
                Files.setOwner(directory, directory.getFileSystem().getUserPrincipalLookupService()
                        .lookupPrincipalByName("postgres"));
            }
            PostgresCluster cluster = new PostgresCluster(directory, freePort(), "postgres");
            try {
                cluster.run(bin("initdb"), "-D", cluster.data.toString(), "-U", "postgres", "--auth=trust",
                        "--no-sync", "-E", "UTF8");
                cluster.run(bin("pg_ctl"), "-D", cluster.data.toString(), "-l", directory.resolve("log").toString(),
                        "-w", "-t", "60", "-o", "-p " + cluster.port + " -k " + directory
                                + " -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections="
                                + MAX_CONNECTIONS, "start");
                return cluster;
            } catch (RuntimeException e) {
                cluster.stop();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return port;
    }

    /** The database the test works in. */
    String database() {
        return database;
    }

    /** The JDBC URL of {@link #database()}, for the test's own sessions. */
    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** A plain DataSource on {@link #url()}. */
    DataSource dataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(url());
        dataSource.setUser("postgres");
        return dataSource;
    }

    /** Runs SQL on a session of its own, writable whatever the database's default. */
    void execute(String sql) {
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("SET default_transaction_read_only = off");
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** SIGSTOP to the postmaster and every backend: sockets stay open and nothing answers. */
    void pause() {
        signal("-STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    void resume() {
        signal("-CONT");
    }

    private void signal(String signal) {
        long postmaster = postmasterPid();
        ProcessHandle.of(postmaster).orElseThrow().descendants().forEach(process -> kill(signal, process.pid()));
        kill(signal, postmaster);
    }

    /** Backends come and go while the list is read: one that has ended needs no signal. */
    private static void kill(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", signal, String.valueOf(pid)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long postmasterPid() {
        try {
            return Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Drops the test's database, ending its sessions; the cluster goes on for the next class. */
    @Override
    public void close() {
        resume(); // a paused server would not answer
        new PostgresCluster(directory, port, "postgres").execute("DROP DATABASE IF EXISTS " + database
                + " WITH (FORCE)");
    }

    /** Stops the server and deletes its files. */
    private void stop() {
        try {
            if (Files.exists(data.resolve("postmaster.pid"))) {
                resume(); // a paused server would not stop
                run(bin("pg_ctl"), "-D", data.toString(), "-m", "immediate", "-w", "stop");
            }
        } finally {
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // a temporary directory left behind
            }
        }
    }

    /** Runs a command to its end (as postgres when root), failing with its output when it fails. */
    private void run(String... command) {
        List<String> line = new ArrayList<>();
        if (asRoot()) {
            line.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        line.addAll(List.of(command));
        try {
            Path output = Files.createTempFile("ratelimiter-pg-command-", ".log");
            try {
                Process process = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(output.toFile())
                        .start();
                if (!process.waitFor(Duration.ofSeconds(90).toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    throw new IllegalStateException(String.join(" ", line) + " did not finish");
                }
                if (process.exitValue() != 0) {
                    throw new IllegalStateException(String.join(" ", line) + " failed: "
                            + Files.readString(output, StandardCharsets.UTF_8) + log());
                }
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String log() throws IOException {
        Path log = directory.resolve("log");
        return Files.exists(log) ? "\nserver log:\n" + Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A program of the newest PostgreSQL installed. */
    private static String bin(String program) {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(version -> version.resolve("bin").resolve(program)).filter(Files::isExecutable)
                    .max(Comparator.comparing(path -> Integer.parseInt(path.getParent().getParent().getFileName()
                            .toString().replaceAll("\\D.*", ""))))
                    .orElseThrow(() -> new IllegalStateException(program + " not found under /usr/lib/postgresql"))
                    .toString();
        } catch (IOException e) {
            throw new UncheckedIOException("PostgreSQL's binaries are not installed under /usr/lib/postgresql", e);
        }
    }
}
