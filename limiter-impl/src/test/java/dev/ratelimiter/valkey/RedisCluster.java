package dev.ratelimiter.valkey;

import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of the test's own: masters only, each a {@link RedisServer} with cluster mode on, joined by
 * {@code redis-cli --cluster create}. Each node keeps its {@code nodes.conf} in its own directory (a relative
 * name resolves against {@code --dir}) and gets a free port for its cluster bus too, since the default
 * {@code port + 10000} can lie beyond 65535 for a free port.
 */
final class RedisCluster implements AutoCloseable {

    private final List<RedisServer> nodes = new ArrayList<>();

    private RedisCluster() {
    }

    /** Starts {@code masters} nodes, creates the cluster and waits until every node says its state is ok. */
    static RedisCluster start(int masters) {
        RedisCluster cluster = new RedisCluster();
        try {
            for (int i = 0; i < masters; i++) {
                cluster.nodes.add(RedisServer.start("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", "2000",
                        "--cluster-port", String.valueOf(RedisServer.freePort())));
            }
            cluster.create();
            cluster.awaitStateOk();
            return cluster;
        } catch (IOException e) {
            cluster.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** {@code 127.0.0.1:<port>} of every node, for the client's seed nodes. */
    List<String> addresses() {
        return nodes.stream().map(node -> "127.0.0.1:" + node.port()).toList();
    }

    List<RedisServer> nodes() {
        return List.copyOf(nodes);
    }

    private void create() throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        command.addAll(addresses());
        command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Path output = nodes.get(0).directory().resolve("cluster-create.log");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create did not finish in 60 s: "
                        + Files.readString(output, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("redis-cli --cluster create failed (" + process.exitValue() + "): "
                    + Files.readString(output, StandardCharsets.UTF_8));
        }
    }

    private void awaitStateOk() {
        for (RedisServer node : nodes) {
            await("cluster_state:ok on port " + node.port()).atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                            return jedis.clusterInfo().contains("cluster_state:ok");
                        }
                    });
        }
    }

    @Override
    public void close() {
        for (RedisServer node : nodes) {
            node.close();
        }
    }
}
