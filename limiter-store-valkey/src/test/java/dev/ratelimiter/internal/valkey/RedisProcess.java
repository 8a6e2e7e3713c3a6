package dev.ratelimiter.internal.valkey;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/**
 * A {@code redis-server} process that {@link RedisServer} cannot start, because its command line is not
 * {@code redis-server --port <port> ...}: a Sentinel (whose configuration file must come first and be writable,
 * since the Sentinel rewrites it) and a TLS-only server ({@code --port 0 --tls-port <port>}). Listens on a free
 * loopback port; its output goes to {@code redis.log} in its own temporary directory.
 */
final class RedisProcess implements AutoCloseable {

    private final int port;
    private final Path directory;
    private final Process process;

    private RedisProcess(int port, Path directory, List<String> command) throws IOException {
        this.port = port;
        this.directory = directory;
        this.process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("redis.log").toFile())
                .start();
        try {
            await().atMost(Duration.ofSeconds(15)).ignoreExceptions()
                    .failFast("redis-server exited", () -> !process.isAlive())
                    .until(() -> {
                        try (Socket socket = new Socket("127.0.0.1", port)) {
                            return socket.isConnected();
                        }
                    });
        } catch (RuntimeException | Error e) {
            close();
            throw new IllegalStateException(String.join(" ", command) + " did not start: " + log(), e);
        }
    }

    /**
     * A Sentinel on a free port watching one master as {@code masterName}, with quorum 1, a 1 s down-after and a
     * 5 s failover timeout.
     */
    static RedisProcess sentinel(String masterName, int masterPort) {
        try {
            int port = RedisServer.freePort();
            Path directory = Files.createTempDirectory("ratelimiter-sentinel-");
            Path configuration = directory.resolve("sentinel.conf");
            Files.writeString(configuration, String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "dir " + directory,
                    "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 1",
                    "sentinel down-after-milliseconds " + masterName + " 1000",
                    "sentinel failover-timeout " + masterName + " 5000",
                    ""), StandardCharsets.UTF_8);
            return new RedisProcess(port, directory,
                    List.of("redis-server", configuration.toString(), "--sentinel"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A server that accepts TLS connections only, on a free port.
     *
     * @param extraArguments the certificate options ({@code --tls-cert-file} and so on)
     */
    static RedisProcess tls(String... extraArguments) {
        try {
            int port = RedisServer.freePort();
            Path directory = Files.createTempDirectory("ratelimiter-redis-tls-");
            List<String> command = new ArrayList<>(List.of("redis-server", "--port", "0", "--tls-port",
                    String.valueOf(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
                    directory.toString()));
            command.addAll(List.of(extraArguments));
            return new RedisProcess(port, directory, command);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return port;
    }

    Path directory() {
        return directory;
    }

    /** What the process wrote so far, for failure messages. */
    String log() {
        try {
            Path log = directory.resolve("redis.log");
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            await().atMost(Duration.ofSeconds(10)).until(() -> !process.isAlive());
        }
    }
}
