package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.monitor.BackendStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Cluster health is per master: one master down sends only its own keys to the outage policy, its probe goes to
 * it (no other master answers for it), and the status names it. The cluster serves the slots it still covers
 * ({@code cluster-require-full-coverage no}); with the default {@code yes} every master refuses every key once
 * one is down, and every master's breaker opens, as it should. One cluster for the class: each test leaves every
 * master running, answering and empty, and starts a client of its own.
 */
class ValkeyClusterNodeDownTest {

    private static RedisCluster cluster;
    private ValkeyChain chain;
    private final List<BackendStatus> changes = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, "--cluster-require-full-coverage", "no");
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @BeforeEach
    void start() {
        chain = new ValkeyChain(ValkeyClusterContractTest.settings(cluster.addresses()));
        chain.monitor.onChange(changes::add);
    }

    @AfterEach
    void stop() {
        if (chain != null) {
            chain.close();
        }
        cluster.restore();
    }

    @Test
    @DisplayName("one master killed: its keys go to the fallback and the status names it alone, steadily, while the keys of the others are counted in Valkey; restarted: ok")
    void oneMasterDown() {
        RedisServer victim = cluster.nodes().get(0);
        Bucket down = Bucket.of("down", 1_000, Duration.ofMinutes(5));
        Bucket up = Bucket.of("up", 1_000, Duration.ofMinutes(5));
        String downKey = keyOn(down, victim);
        Map<String, RedisServer> upKeys = new LinkedHashMap<>();
        cluster.nodes().stream().filter(node -> node != victim).forEach(node -> upKeys.put(keyOn(up, node), node));
        assertThat(chain.limiter.consume(down, downKey).remaining()).isEqualTo(999);
        upKeys.keySet().forEach(key -> assertThat(chain.limiter.consume(up, key).remaining()).isEqualTo(999));

        victim.kill();

        await("degraded").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            assertThat(chain.limiter.consume(down, downKey).outcome()).isEqualTo(Outcome.ALLOWED);
            return chain.degraded();
        });
        String victimName = "127.0.0.1:" + victim.port();
        assertThat(chain.monitor.status().failingParts()).containsExactly(victimName);
        // Long enough for the victim's probe to run twice: answered by another master, it would close its breaker.
        long[] counted = {1};
        await("the other masters' keys counted in Valkey, steadily").during(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(7)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    assertThat(chain.limiter.consume(down, downKey).outcome()).isEqualTo(Outcome.ALLOWED);
                    counted[0]++;
                    for (String key : upKeys.keySet()) {
                        Verdict verdict = chain.limiter.consume(up, key);
                        assertThat(verdict.remaining()).as(key).isEqualTo(1_000 - counted[0]);
                    }
                    return chain.monitor.status().failingParts().equals(List.of(victimName));
                });
        assertThat(chain.outages.fallbacks("up")).as("fallbacks for the keys of masters that answer").isZero();
        assertThat(chain.outages.fallbacks("down")).isPositive();
        upKeys.forEach((key, owner) -> {
            try (Jedis direct = new Jedis("127.0.0.1", owner.port())) {
                assertThat(direct.get(counter(up, key))).isEqualTo(String.valueOf(counted[0]));
            }
        });
        assertThat(changes).extracting(BackendStatus::state).containsExactly(BackendState.DEGRADED);

        victim.restart();

        await("ok again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            chain.limiter.consume(down, downKey);
            return !chain.degraded();
        });
        assertThat(chain.monitor.status().failingParts()).isEmpty();
        long storeCalls = chain.store.calls();
        assertThat(chain.limiter.consume(down, downKey).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(chain.store.calls()).as("the victim's keys reach Valkey again").isEqualTo(storeCalls + 1);
    }

    @Test
    @DisplayName("a master paused past the deadline: the decision is UNAVAILABLE, and the script it sent runs once when the master goes on, never replayed")
    void timedOutScriptNotReplayed() {
        RedisServer owner = cluster.nodes().get(1);
        Bucket bucket = Bucket.of("timeout", 1_000, Duration.ofMinutes(5));
        String key = keyOn(bucket, owner);
        assertThat(chain.limiter.consume(bucket, key).remaining()).isEqualTo(999);

        owner.pause();
        Verdict timedOut;
        try {
            timedOut = chain.store.consume(bucket, key); // the store itself: the verdict before any policy
        } finally {
            owner.resume();
        }

        assertThat(timedOut.outcome()).isEqualTo(Outcome.UNAVAILABLE);
        try (Jedis direct = new Jedis("127.0.0.1", owner.port())) {
            await("the sent script ran once the master went on").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(50)).until(() -> "2".equals(direct.get(counter(bucket, key))));
            assertThat(chain.limiter.consume(bucket, key).remaining()).as("counted once, not replayed")
                    .isEqualTo(1_000 - 3);
        }
    }

    /** A hashed key whose counter in {@code bucket} lives on {@code node}. */
    private String keyOn(Bucket bucket, RedisServer node) {
        for (int i = 0; ; i++) {
            String key = "client-" + i;
            if (cluster.owner(JedisClusterCRC16.getSlot(counter(bucket, key))) == node) {
                return key;
            }
        }
    }

    private static String counter(Bucket bucket, String key) {
        return "rl-test:{" + bucket.name() + ":" + key + "}";
    }
}
