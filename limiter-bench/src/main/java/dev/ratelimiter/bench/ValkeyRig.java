package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.valkey.RedisServer;
import dev.ratelimiter.internal.valkey.ValkeyLayout;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.serialization.Mapper;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Valkey's rig: a {@code redis-server} of the benchmark's own (the tests' {@link RedisServer}), the library's
 * store (in decisions/s, and a concurrency permit's take and give-back in pairs/s) and decision path, a bare Jedis
 * loop calling the same script by EVALSHA through a client with the library's client and pool settings,
 * {@code redis-benchmark} calling the same script, and Bucket4j's Jedis proxy manager (compare-and-swap) on the
 * same client settings.
 */
final class ValkeyRig extends StoreRig {

    static final String BARE = "bare Jedis loop";
    static final String TOOL = "redis-benchmark EVALSHA";
    static final String PIPELINED_TOOL = "redis-benchmark EVALSHA -P 16";
    static final String BUCKET4J = "Bucket4j 8.14 Jedis (CAS)";

    private final RedisServer server;
    private final ValkeyLayout layout = new ValkeyLayout(LibraryPaths.KEY_PREFIX);

    ValkeyRig(RedisServer server) {
        this.server = server;
    }

    @Override
    String name() {
        return "Valkey";
    }

    @Override
    String server() {
        try (UnifiedJedis client = LibraryPaths.valkeyClient(server.url())) {
            String info = client.info("server");
            return info.lines().filter(l -> l.startsWith("redis_version:") || l.startsWith("valkey_version:"))
                    .findFirst().orElse("unknown version").trim() + ", `redis-server --save \"\" --appendonly no` "
                    + "on a free port";
        }
    }

    @Override
    List<Contender> contenders() {
        LibraryPaths.Store store = keep(LibraryPaths.valkey(server.url(), LibraryPaths.TIMEOUT,
                RateLimiterMetrics.NONE));
        RateLimiterMetrics metrics = LibraryPaths.metrics();
        LibraryPaths.Decision path = keep(LibraryPaths.Decision.shared(List.of(HOT, SPREAD),
                LibraryPaths.valkey(server.url(), LibraryPaths.TIMEOUT, metrics), metrics));
        LibraryPaths.Decision unbatched = keep(LibraryPaths.Decision.shared(List.of(HOT, SPREAD),
                LibraryPaths.valkey(server.url(), LibraryPaths.TIMEOUT, metrics, false), metrics));
        UnifiedJedis bare = keep(LibraryPaths.valkeyClient(server.url()));
        bare.scriptLoad(ValkeyLayout.script());
        UnifiedJedis bucket4jClient = keep(LibraryPaths.valkeyClient(server.url()));
        ProxyManager<String> bucket4j = Bucket4jJedis.casBasedBuilder(bucket4jClient).keyMapper(Mapper.STRING)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                        Duration.ofMinutes(1))).build();
        return List.of(
                libraryStore(store),
                tokenStore(store),
                slidingStore(store),
                calendarStore(store),
                permitPairs(store),
                libraryPath(path),
                libraryPath(UNBATCHED, unbatched),
                twoBuckets(store, true),
                twoBuckets(store, false),
                Contender.inJvm(BARE, load -> {
                    Bucket bucket = bucket(load);
                    String[] keys = Keys.map(Keys.hashed(load.keys()), k -> layout.counterKey(bucket, k));
                    String[] arguments = ValkeyLayout.arguments(bucket);
                    String sha = ValkeyLayout.scriptSha();
                    return thread -> key -> bare.evalsha(sha, 1, keys[key], arguments[0], arguments[1], arguments[2],
                            arguments[3]) instanceof List<?>;
                }),
                new RedisBenchmark(server.port(), layout, 1),
                new RedisBenchmark(server.port(), layout, 16),
                Contender.inJvm(BUCKET4J, load -> {
                    Bucket bucket = bucket(load);
                    String[] keys = Keys.map(Keys.hashed(load.keys()), k -> "b4j:" + bucket.name() + ":" + k);
                    BucketConfiguration configuration = bucket4jConfiguration(bucket);
                    Supplier<BucketConfiguration> supplier = () -> configuration;
                    return thread -> key -> {
                        bucket4j.builder().build(keys[key], supplier).tryConsume(1);
                        return true;
                    };
                }));
    }

    static BucketConfiguration bucket4jConfiguration(Bucket bucket) {
        return BucketConfiguration.builder().addLimit(limit -> limit.capacity(bucket.limit())
                .refillIntervally(bucket.limit(), bucket.window())).build();
    }

    @Override
    List<Comparison> comparisons() {
        List<Comparison> comparisons = new ArrayList<>(libraryComparisons(BARE, TOOL));
        comparisons.add(Comparison.of(STORE, BUCKET4J));
        comparisons.addAll(batchingComparisons(TOOL, PIPELINED_TOOL));
        return comparisons;
    }

    /** {@code redis-benchmark} calling the library's script by EVALSHA, on the same server. */
    private static final class RedisBenchmark implements Contender {
        private final int port;
        private final ValkeyLayout layout;
        private final int pipeline;

        /** @param pipeline requests per pipeline ({@code -P}); 1 for none */
        RedisBenchmark(int port, ValkeyLayout layout, int pipeline) {
            this.port = port;
            this.layout = layout;
            this.pipeline = pipeline;
        }

        @Override
        public String name() {
            return pipeline == 1 ? TOOL : PIPELINED_TOOL;
        }

        @Override
        public Figure measure(Load load) throws Exception {
            // A short run estimates the rate (and warms the server), so the measured run lasts about the
            // load's duration: redis-benchmark counts requests, not seconds.
            double rate = run(load, 2_000).value();
            long requests = Math.max(1_000, (long) (rate * load.duration().toMillis() / 1000.0));
            return run(load, requests);
        }

        private Figure run(Load load, long requests) throws Exception {
            Bucket bucket = bucket(load);
            List<String> command = new ArrayList<>(List.of("redis-benchmark", "-h", "127.0.0.1",
                    "-p", String.valueOf(port), "-c", String.valueOf(load.threads()), "-n", String.valueOf(requests),
                    "--csv"));
            if (pipeline > 1) {
                command.addAll(List.of("-P", String.valueOf(pipeline)));
            }
            String key = layout.counterKey(bucket, load.hot() ? "hot" : "__rand_int__");
            if (!load.hot()) {
                command.addAll(List.of("-r", String.valueOf(load.keys())));
            }
            command.addAll(List.of("EVALSHA", ValkeyLayout.scriptSha(), "1", key));
            command.addAll(List.of(ValkeyLayout.arguments(bucket)));
            String output = Tools.run(command);
            // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms",...
            String last = output.lines().filter(l -> l.startsWith("\"EVALSHA")).reduce((a, b) -> b)
                    .orElseThrow(() -> new IllegalStateException("redis-benchmark printed no result: " + output));
            String[] fields = last.replace("\"", "").split(",");
            if (fields.length < 7) {
                throw new IllegalStateException("unexpected redis-benchmark output: " + output);
            }
            return new Figure(name(), Double.parseDouble(fields[1]), "decisions/s", Map.of(
                    "p50_us", Double.parseDouble(fields[4]) * 1000,
                    "p99_us", Double.parseDouble(fields[6]) * 1000));
        }
    }

}
