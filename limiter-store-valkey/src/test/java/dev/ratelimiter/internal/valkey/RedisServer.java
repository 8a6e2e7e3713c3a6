package dev.ratelimiter.internal.valkey;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.awaitility.Awaitility.await;

/**
 * A {@code redis-server} process of the test's own, on a free loopback port, so the test can kill, pause and
 * restart it. Keeps nothing on disk beyond its temporary directory. Public: the server modules' outage tests use
 * it from limiter-impl's test-jar.
 */
public final class RedisServer implements AutoCloseable {

    /** Starts on fresh ports after a port chosen free was taken before the server bound it ({@link #start}). */
    private static final int BIND_ATTEMPTS = 3;

    private final int port;
    private final Path directory;
    private final List<String> extraArguments;
    private Process process;

    private RedisServer(int port, List<String> extraArguments) throws IOException {
        this.port = port;
        this.directory = Files.createTempDirectory("ratelimiter-redis-");
        this.extraArguments = List.copyOf(extraArguments);
    }

    /** Starts a server on a free port and waits until it accepts connections. */
    public static RedisServer start(String... extraArguments) {
        return start(() -> extraArguments);
    }

    /**
     * Starts a server on a free port, with the extra arguments {@code extraArguments} gives, and waits until it
     * accepts connections. A port chosen free can be taken before the server binds it (by another test's server, or
     * as a client connection's local port); the server then exits at once, and it is started again on a fresh port
     * with its arguments drawn again (a cluster node's bus port is one), at most {@link #BIND_ATTEMPTS} times.
     *
     * @throws IllegalStateException the server exited before accepting connections, for another reason or on every
     *                               attempt; the message holds its log
     */
    static RedisServer start(Supplier<String[]> extraArguments) {
        try {
            for (int attempt = 1; ; attempt++) {
                RedisServer server = new RedisServer(freePort(), List.of(extraArguments.get()));
                try {
                    server.launch();
                    return server;
                } catch (PortTaken e) {
                    if (attempt == BIND_ATTEMPTS) {
                        throw e;
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    Path directory() {
        return directory;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    /** Starts it again on the same port after {@link #kill()}. */
    public void restart() {
        try {
            launch();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether its process runs (it may be paused); false after {@link #kill()}. */
    boolean alive() {
        return process.isAlive();
    }

    /** SIGKILL: connections drop at once. */
    public void kill() {
        process.destroyForcibly();
        await().atMost(Duration.ofSeconds(10)).until(() -> !process.isAlive());
    }

    /** SIGSTOP: the socket stays open and nothing answers. */
    public void pause() {
        signal("-STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        signal("-CONT");
    }

    private void launch() throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", String.valueOf(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.toString()));
        command.addAll(extraArguments);
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("redis.log").toFile())
                .start();
        // Done waiting when it accepts, or when it has exited: a server that cannot bind exits at once.
        await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> {
            if (!process.isAlive()) {
                return true;
            }
            try (Socket socket = new Socket("127.0.0.1", port)) {
                return socket.isConnected();
            }
        });
        if (!process.isAlive()) {
            String log = Files.readString(directory.resolve("redis.log"));
            String message = "redis-server on port " + port + " exited before accepting connections: " + log;
            throw log.contains("Address already in use") ? new PortTaken(message) : new IllegalStateException(message);
        }
    }

    /** A port chosen free was bound by someone else first. */
    private static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, String.valueOf(process.pid())).start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill " + signal + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            resume(); // a stopped process ignores SIGKILL until continued on some kernels
            process.destroyForcibly();
        }
    }
}
