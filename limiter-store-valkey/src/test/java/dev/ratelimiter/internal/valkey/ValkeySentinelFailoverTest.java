package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.contract.SteadyLoad;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Sentinel failover under the full chain ({@code mode=sentinel}): one master, one replica and one Sentinel of
 * the test's own. The master is killed; the Sentinel promotes the replica, the client follows the switch and the
 * breaker's probe brings the chain back to ok, counting on the new master. Or an operator runs
 * {@code SENTINEL FAILOVER} under load: the old master is demoted while decisions run.
 */
class ValkeySentinelFailoverTest {

    private static final String MASTER_NAME = "rl";

    private final Started started = new Started();
    private RedisServer master;
    private RedisServer replica;
    private RedisProcess sentinel;
    private ValkeyChain chain;

    @BeforeEach
    void start() {
        master = started(RedisServer.start("--repl-diskless-sync-delay", "0")); // the replica syncs at once
        replica = started(RedisServer.start("--replicaof", "127.0.0.1", String.valueOf(master.port())));
        sentinel = started(RedisProcess.sentinel(MASTER_NAME, master.port()));
        await("replica in sync").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> info(replica.port(), "replication").contains("master_link_status:up"));
        await("Sentinel knows the replica").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    try (Jedis jedis = new Jedis("127.0.0.1", sentinel.port())) {
                        List<Map<String, String>> replicas = jedis.sentinelReplicas(MASTER_NAME);
                        return replicas.size() == 1
                                && replicas.get(0).get("port").equals(String.valueOf(replica.port()))
                                && replicas.get(0).get("flags").equals("slave");
                    }
                });
        chain = started(new ValkeyChain(new ValkeySettings(ValkeySettings.Mode.SENTINEL, "redis://127.0.0.1",
                List.of("127.0.0.1:" + sentinel.port()), Optional.of(MASTER_NAME), Optional.empty(),
                Optional.empty(), Duration.ofMillis(200), "rl-test:", 16, Optional.empty(), Optional.empty())));
    }

    private <T extends AutoCloseable> T started(T resource) {
        return started.add(resource);
    }

    @AfterEach
    void stop() throws Exception {
        started.close();
    }

    @Test
    @DisplayName("master killed: no exception, degraded; the Sentinel promotes the replica and counting goes on there, from the count replicated before the kill")
    void failover() {
        Bucket bucket = Bucket.of("failover", 1_000, Duration.ofMinutes(5));
        String key = "rl-test:{failover:k}";
        for (int i = 1; i <= 5; i++) {
            Verdict verdict = chain.limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(verdict.remaining()).isEqualTo(1_000 - i);
        }
        assertThat(chain.store.calls()).isEqualTo(5);
        // Made certain rather than hoped for: the five counts reached the replica before the master dies.
        await("replicated").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> "5".equals(get(replica.port(), key)));

        master.kill();

        // Every consume below runs inside the condition: an exception escaping the chain fails the test.
        await("degraded").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    chain.limiter.consume(bucket, "k");
                    return chain.degraded();
                });
        assertThat(chain.outages.fallbacks("failover")).as("fallback answers").isPositive();
        await("ok again on the promoted replica").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    Verdict verdict = chain.limiter.consume(bucket, "k");
                    assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED); // the store's or the fallback's
                    return !chain.degraded();
                });

        long storeCalls = chain.store.calls();
        long fallbacks = chain.outages.fallbacks("failover");
        Verdict answered = chain.limiter.consume(bucket, "k");
        assertThat(chain.store.calls()).as("reached the store").isEqualTo(storeCalls + 1);
        assertThat(chain.outages.fallbacks("failover")).as("no fallback").isEqualTo(fallbacks);
        assertThat(answered.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(chain.breaker.isOpen()).isFalse();

        assertThat(info(replica.port(), "replication")).contains("role:master");
        String stored = get(replica.port(), key);
        assertThat(stored).as("the counter on the promoted replica").isNotNull();
        long count = Long.parseLong(stored);
        assertThat(count).as("what the last verdict reported").isEqualTo(1_000 - answered.remaining());
        assertThat(count).as("the five replicated counts plus at least the last attempt").isGreaterThanOrEqualTo(6);
    }

    @Test
    @DisplayName("SENTINEL FAILOVER under 8 threads of decisions: none throws or passes its deadline by far, and counting goes on on the promoted replica")
    void operatorFailoverUnderLoad() throws Exception {
        // Limits no loop can reach: every verdict must be ALLOWED, from the store or the outage policy.
        Bucket fallback = Bucket.of("sf-fallback", Bucket.MAX_LIMIT, Duration.ofMinutes(5));
        Bucket failOpen = Bucket.of("sf-open", Bucket.MAX_LIMIT, Duration.ofMinutes(5), OutagePolicy.FAIL_OPEN);
        String counter = "rl-test:{sf-fallback:client-0}";
        try (SteadyLoad load = SteadyLoad.start(chain.limiter, fallback, failOpen)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> chain.store.calls() > 500);

            try (Jedis jedis = new Jedis("127.0.0.1", sentinel.port())) {
                jedis.sentinelFailover(MASTER_NAME);
            }

            await("promoted").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> info(replica.port(), "replication").contains("role:master"));
            await("ok, and counting on the promoted replica").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200)).until(() -> {
                        String before = get(replica.port(), counter);
                        long storeCalls = chain.store.calls();
                        await().atMost(Duration.ofSeconds(5)).until(() -> chain.store.calls() > storeCalls + 100);
                        String after = get(replica.port(), counter);
                        return !chain.degraded() && before != null && Long.parseLong(after) > Long.parseLong(before);
                    });
            // Every call has a 200 ms deadline; 1 s leaves room for a slow machine, not for a replayed call.
            assertThat(load.stop()).as("slowest decision").isLessThan(Duration.ofSeconds(1));
        }
        await("the old master demoted").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> info(master.port(), "replication").contains("role:slave"));
    }

    private static String info(int port, String section) {
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            return jedis.info(section);
        }
    }

    private static String get(int port, String key) {
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            return jedis.get(key);
        }
    }
}
