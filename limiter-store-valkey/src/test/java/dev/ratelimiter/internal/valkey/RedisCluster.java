package dev.ratelimiter.internal.valkey;

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

    /**
     * Starts {@code masters} nodes, creates the cluster and waits until every node says its state is ok.
     *
     * @param extraArguments more {@code redis-server} options for every node
     */
    static RedisCluster start(int masters, String... extraArguments) {
        RedisCluster cluster = new RedisCluster();
        try {
            for (int i = 0; i < masters; i++) {
                cluster.nodes.add(RedisServer.start(() -> nodeArguments(extraArguments)));
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

    /** A node's arguments, its cluster bus on a port chosen free anew at each call (each start's attempt). */
    private static String[] nodeArguments(String... extraArguments) {
        try {
            List<String> arguments = new ArrayList<>(List.of("--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", "2000",
                    "--cluster-port", String.valueOf(RedisServer.freePort())));
            arguments.addAll(List.of(extraArguments));
            return arguments.toArray(String[]::new);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
        List<String> arguments = new ArrayList<>(List.of("create"));
        arguments.addAll(addresses());
        arguments.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        redisCliCluster(arguments, "cluster-create.log");
    }

    /**
     * {@code redis-cli --cluster reshard}: moves {@code from}'s lowest slot to {@code to}, its keys one MIGRATE at
     * a time ({@code --cluster-pipeline 1}), so the slot stays MIGRATING/IMPORTING for as long as possible.
     */
    void reshardLowestSlot(RedisServer from, RedisServer to) {
        try {
            redisCliCluster(List.of("reshard", "127.0.0.1:" + from.port(), "--cluster-from", nodeId(from),
                    "--cluster-to", nodeId(to), "--cluster-slots", "1", "--cluster-pipeline", "1", "--cluster-yes"),
                    "cluster-reshard.log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String nodeId(RedisServer node) {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            return jedis.clusterMyId();
        }
    }

    /** The master that owns {@code slot} now, as that master itself says. */
    RedisServer owner(int slot) {
        for (RedisServer node : nodes) {
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                String myself = jedis.clusterMyId();
                for (String line : jedis.clusterNodes().split("\n")) {
                    String[] fields = line.split(" ");
                    if (fields[0].equals(myself) && ownsSlot(fields, slot)) {
                        return node;
                    }
                }
            }
        }
        throw new IllegalStateException("no node says it owns slot " + slot);
    }

    /** Fields 8 and on of a CLUSTER NODES line: slots and ranges ({@code 0-5460}, {@code 7}, {@code [..]}). */
    private static boolean ownsSlot(String[] fields, int slot) {
        for (int i = 8; i < fields.length; i++) {
            if (fields[i].startsWith("[")) {
                continue; // a slot being imported or migrated
            }
            String[] range = fields[i].split("-");
            int low = Integer.parseInt(range[0]);
            int high = Integer.parseInt(range[range.length - 1]);
            if (slot >= low && slot <= high) {
                return true;
            }
        }
        return false;
    }

    private void redisCliCluster(List<String> arguments, String logName) throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster"));
        command.addAll(arguments);
        Path output = nodes.get(0).directory().resolve(logName);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in 60 s: "
                        + Files.readString(output, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed (" + process.exitValue() + "): "
                    + Files.readString(output, StandardCharsets.UTF_8));
        }
    }

    /**
     * After a test that killed or paused masters: every master running again (a killed one restarted, rejoining
     * with its {@code nodes.conf}) and answering, its keys flushed, and the cluster's state ok on each.
     */
    void restore() {
        for (RedisServer node : nodes) {
            if (node.alive()) {
                node.resume();
            } else {
                node.restart();
            }
        }
        awaitStateOk();
        for (RedisServer node : nodes) {
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                jedis.flushAll();
            }
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
