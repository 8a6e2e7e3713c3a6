package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A slot moving between masters while decisions run, through the full chain ({@code mode=cluster}): an ASK reply
 * means the script did not run, so it is run once on the importing node after ASKING; nothing falls back and
 * nothing is counted twice. A cluster of the class's own (three masters); each test moves slots of its own.
 */
class ValkeyClusterReshardTest {

    private static RedisCluster cluster;

    private ValkeyChain chain;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void startChain() {
        chain = new ValkeyChain(ValkeyClusterContractTest.settings(cluster.addresses()));
    }

    @AfterEach
    void stopChain() {
        chain.close();
    }

    @Test
    @DisplayName("consume k twice, its slot MIGRATING to another master and k migrated: the next decision follows ASK once and is ALLOWED with remaining = limit - 3")
    void followsAsk() {
        Bucket bucket = Bucket.of("ask", 10, Duration.ofMinutes(5));
        String key = "rl-test:{ask:k}";
        int slot = JedisClusterCRC16.getSlot(key);
        assertThat(chain.limiter.consume(bucket, "k").remaining()).isEqualTo(9);
        assertThat(chain.limiter.consume(bucket, "k").remaining()).isEqualTo(8);
        RedisServer owner = cluster.owner(slot);
        RedisServer importer = cluster.nodes().stream().filter(node -> node != owner).findFirst().orElseThrow();

        try (Jedis from = new Jedis("127.0.0.1", owner.port()); Jedis to = new Jedis("127.0.0.1", importer.port())) {
            to.clusterSetSlotImporting(slot, RedisCluster.nodeId(owner));
            from.clusterSetSlotMigrating(slot, RedisCluster.nodeId(importer));
            from.migrate("127.0.0.1", importer.port(), key, 0, 5_000);

            Verdict verdict = chain.limiter.consume(bucket, "k");

            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(verdict.remaining()).isEqualTo(10 - 3);
            to.asking();
            assertThat(to.get(key)).as("the script ran once, on the importing node").isEqualTo("3");
            assertThat(from.clusterCountKeysInSlot(slot)).as("none left on the old owner").isZero();

            // The migration ends, as redis-cli would end it: the next decision meets MOVED, and follows it once.
            for (RedisServer node : cluster.nodes()) {
                try (Jedis any = new Jedis("127.0.0.1", node.port())) {
                    any.clusterSetSlotNode(slot, RedisCluster.nodeId(importer));
                }
            }
            assertThat(chain.limiter.consume(bucket, "k").remaining()).isEqualTo(10 - 4);
        }
        assertThat(chain.monitor.errors()).as("failed store calls").isZero();
        assertThat(chain.outages.fallbacks("ask")).isZero();
    }

    @Test
    @DisplayName("redis-cli --cluster reshard of the slot of 100 keys while 8 threads decide on them: admitted == limit for every key, no fallback, no failed call")
    void liveReshard() throws Exception {
        RedisServer source = cluster.owner(0);
        RedisServer target = cluster.nodes().stream().filter(node -> node != source).findFirst().orElseThrow();
        int slot = lowestSlot(source);
        Bucket bucket = Bucket.of("reshard", 50, Duration.ofMinutes(5));
        List<String> keys = keysInSlot(bucket, slot, 100);
        Map<String, AtomicLong> admitted = new ConcurrentHashMap<>();
        keys.forEach(key -> admitted.put(key, new AtomicLong()));
        AtomicBoolean resharded = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> deciders = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                deciders.add(threads.submit(() -> {
                    // Until the slot has moved, and then until every key has met its limit.
                    while (!resharded.get() || admitted.values().stream().anyMatch(n -> n.get() < bucket.limit())) {
                        String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
                        if (chain.limiter.consume(bucket, key).outcome() == Outcome.ALLOWED) {
                            admitted.get(key).incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> chain.store.calls() > 200);

            cluster.reshardLowestSlot(source, target);
            resharded.set(true);

            for (Future<?> decider : deciders) {
                decider.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(cluster.owner(slot)).as("the slot moved").isSameAs(target);
        assertThat(admitted).allSatisfy((key, count) -> assertThat(count.get()).as(key).isEqualTo(bucket.limit()));
        assertThat(chain.outages.fallbacks("reshard")).as("fallbacks").isZero();
        assertThat(chain.monitor.errors()).as("failed store calls").isZero();
        try (Jedis moved = new Jedis("127.0.0.1", target.port())) {
            assertThat(moved.clusterCountKeysInSlot(slot)).as("counters on the new owner").isEqualTo(keys.size());
            assertThat(moved.info("commandstats")).as("decisions met the slot mid-migration and followed ASK")
                    .containsPattern("cmdstat_asking:calls=[1-9]");
        }
    }

    /** The slot {@code redis-cli --cluster reshard --cluster-slots 1} takes from a source: its lowest. */
    private static int lowestSlot(RedisServer node) {
        for (int slot = 0; slot < JedisClusterCRC16.getSlot("") + 16_384; slot++) {
            if (cluster.owner(slot) == node) {
                return slot;
            }
        }
        throw new IllegalStateException("the node owns no slot");
    }

    /** {@code count} hashed keys whose counters {@code rl-test:{<bucket>:<key>}} all fall in {@code slot}. */
    private static List<String> keysInSlot(Bucket bucket, int slot, int count) {
        List<String> keys = new ArrayList<>();
        for (long i = 0; keys.size() < count; i++) {
            String key = "client-" + i;
            if (JedisClusterCRC16.getSlot("rl-test:{" + bucket.name() + ":" + key + "}") == slot) {
                keys.add(key);
            }
        }
        return keys;
    }
}
