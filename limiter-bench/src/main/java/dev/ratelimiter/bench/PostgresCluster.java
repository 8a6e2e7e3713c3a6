package dev.ratelimiter.bench;

import dev.ratelimiter.internal.valkey.RedisServer;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL cluster of the benchmark's own ({@code initdb} and {@code pg_ctl} from the newest
 * {@code /usr/lib/postgresql/<version>/bin}), on a free loopback port, trust authentication, deleted when closed.
 * Never the test server on 5432. Run as the {@code postgres} user when this process is root, since the server
 * refuses to run as root.
 *
 * <p>{@code synchronous_commit=off}: a commit does not wait for its WAL flush. A shared machine's disk may flush a
 * few hundred times a second, and every contender would then measure the disk, not the client; counters that
 * lose their last few milliseconds in a crash are what a rate limiter can accept.
 */
final class PostgresCluster implements AutoCloseable {

    private final Path bin;
    private final Path directory;
    private final int port;
    private boolean stopped;

    private PostgresCluster(Path bin, Path directory, int port) {
        this.bin = bin;
        this.directory = directory;
        this.port = port;
    }

    static PostgresCluster start() throws IOException, InterruptedException {
        Path bin = newestBin();
        Path directory = Files.createTempDirectory("ratelimiter-bench-pg-");
        PostgresCluster cluster = new PostgresCluster(bin, directory, RedisServer.freePort());
        if (root()) {
            Tools.run(List.of("chown", "postgres:postgres", directory.toString()));
        }
        cluster.pg("initdb", "-D", cluster.data().toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                "--no-sync");
        cluster.pg("pg_ctl", "-D", cluster.data().toString(), "-l", directory.resolve("server.log").toString(),
                "-w", "-t", "60", "-o", "-p " + cluster.port + " -k " + directory + " -c listen_addresses=127.0.0.1"
                        + " -c max_connections=300 -c synchronous_commit=off", "start");
        return cluster;
    }

    int port() {
        return port;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /**
     * Creates database {@code name} in this cluster.
     *
     * @return its JDBC URL
     */
    String createDatabase(String name) throws IOException, InterruptedException {
        pg("createdb", "-h", "127.0.0.1", "-p", String.valueOf(port), "-U", "postgres", name);
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name;
    }

    /**
     * Sends {@code signal} ({@code -STOP}, {@code -CONT}) to the postmaster and every server process under it,
     * so neither open connections nor new ones are answered while stopped.
     */
    void signal(String signal) throws IOException, InterruptedException {
        long postmaster = Long.parseLong(Files.readAllLines(data().resolve("postmaster.pid")).get(0).trim());
        Tools.run(List.of("kill", signal, String.valueOf(postmaster)));
        List<String> children = new ArrayList<>(List.of("kill", signal));
        ProcessHandle.of(postmaster).ifPresent(p -> p.children().forEach(c -> children.add(String.valueOf(c.pid()))));
        // A backend may exit between the listing and the signal (a pool closing its connection): it needs none,
        // so kill's complaint about it is not a failure.
        new ProcessBuilder(children).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor();
        stopped = signal.equals("-STOP");
    }

    private Path data() {
        return directory.resolve("data");
    }

    private void pg(String tool, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (root()) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(tool).toString());
        command.addAll(Arrays.asList(arguments));
        Tools.run(command);
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static Path newestBin() throws IOException {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max(Comparator.comparingInt(b -> Integer.parseInt(b.getParent().getFileName().toString())))
                    .orElseThrow(() -> new IllegalStateException("no initdb under /usr/lib/postgresql/*/bin"));
        }
    }

    String version() {
        return Tools.firstLine(bin.resolve("postgres").toString(), "--version");
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            if (stopped) {
                signal("-CONT");
            }
            pg("pg_ctl", "-D", data().toString(), "-m", "immediate", "-w", "stop");
        } finally {
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }
}
