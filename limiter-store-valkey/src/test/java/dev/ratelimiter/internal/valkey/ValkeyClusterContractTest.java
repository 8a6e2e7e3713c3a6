package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.Capability;
import dev.ratelimiter.contract.ContractTime;
import dev.ratelimiter.contract.RateLimiterContract;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract suite against a three-master Redis Cluster of the class's own, through the client
 * {@link ValkeyClientFactory} builds for {@code mode=cluster} (one attempt, no redirect retries), with real time as in
 * {@link ValkeyStoreTest}.
 */
class ValkeyClusterContractTest extends RateLimiterContract {

    /** The contract cases that wait 2 s or more of real time against a Valkey store (CI's test reports). */
    private static final List<String> REAL_TIME_WAITS = List.of("slidingWindowBoundaryBurst",
            "slidingWindowWeighsPrevious", "slidingWindowIdleKeyStartsAfresh", "slidingWindowRetryAfterBeyondWindowEnd",
            "slidingWindowSeveralWindows", "blocksDouble", "countForgotten", "blockOutlivesTheWindow", "slidingWindow",
            "upstreamHoldOnEveryReplica", "debitAfterTheWindowEndedTouchesNothing", "debitPastTheLimit",
            "refundLeavesALaterWindowAlone", "slidingWindowRefundLeavesPreviousAlone",
            "slidingWindowLowerPlanAppliesToCountMade", "lowerPlanAppliesToCountMade", "renewalKeepsAPermit",
            "slidingWindowShortenedWindowEndsWithinNewLength", "slidingWindowSeveralWindowsKeepTheCountOfALengthKept",
            "shortenedWindowEndsWithinNewLength", "severalWindowsKeepTheCountOfALengthKept",
            "lengthenedWindowKeepsCountAndEnd", "windowEndEndsTheLease", "killedReplicaLeaseEndsWithItsWindow");

    private static RedisCluster cluster;

    private ValkeyClient jedis;
    private BackendMonitor monitor;
    private ValkeyStore store;
    private ValkeyClient replicaClient; // the second replica's, if the case asked for one
    private Limiter replica;

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

    static ValkeySettings settings(List<String> nodes) {
        return new ValkeySettings(ValkeySettings.Mode.CLUSTER, "redis://127.0.0.1", nodes, Optional.empty(),
                Optional.empty(), Optional.empty(), Duration.ofSeconds(2), "rl-test:", 32, Optional.empty(),
                Optional.empty());
    }

    @Override
    protected Limiter newLimiter(InstantSource clock) {
        jedis = ValkeyClientFactory.create(settings(cluster.addresses()));
        monitor = new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE);
        store = new ValkeyStore(() -> jedis, "rl-test:", clock); // the library's clock: calendar boundaries
        return new StoreLimiter(store, monitor, RateLimiterMetrics.NONE);
    }

    /**
     * A second replica: a chain of its own over a store of its own, with its own cluster client, built at the
     * case's first call and closed after it, as the first is.
     */
    @Override
    protected Limiter replica() {
        if (replica == null) {
            ValkeyClient client = ValkeyClientFactory.create(settings(cluster.addresses()));
            replicaClient = client;
            replica = new StoreLimiter(new ValkeyStore(() -> client, "rl-test:", clock),
                    new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE),
                    RateLimiterMetrics.NONE);
        }
        return replica;
    }

    @AfterEach
    void closeClient() {
        if (jedis != null) {
            jedis.close();
        }
        if (replicaClient != null) {
            replicaClient.close();
        }
    }

    @Override
    protected ContractTime time() {
        return ContractTimes.real(clock);
    }

    @Override
    protected Set<Capability> capabilities() {
        return Capability.declaredBy(new ValkeyStoreProvider());
    }

    /**
     * The cases {@link ValkeyStoreTest} leaves out, for the same reasons, and the cases that wait 2 s or more of real
     * time for windows, blocks or leases to end: those waits meet only the scripts' arithmetic over the server's
     * clock, the same on one server as in a cluster, and {@link ValkeyStoreTest} runs each of them. What a cluster
     * changes (which master a key's commands go to, redirections, keys of one call in one slot) each case here meets
     * on its first call, and the cases of every rule that wait less still run here. About 90 s of CI's 30-minute
     * budget.
     */
    @Override
    protected Map<String, String> casesNotRun() {
        Map<String, String> notRun = new HashMap<>(new ValkeyStoreTest().casesNotRun());
        String waits = "waits 2 s or more of real time on the scripts' arithmetic, which a cluster does not change; "
                + "run on one server in ValkeyStoreTest";
        for (String name : REAL_TIME_WAITS) {
            notRun.put(name, waits);
        }
        return notRun;
    }

    @Test
    @DisplayName("90 counters of 30 buckets spread over all three masters: every decision and reset works, each key lives on one node, and no call fails (no CROSSSLOT, no redirect)")
    void keysSpreadOverNodes() {
        List<String> counters = new ArrayList<>();
        for (int b = 0; b < 30; b++) {
            Bucket bucket = bucket("spread" + b, 5, Duration.ofSeconds(60));
            for (String key : List.of("a", "b", "c")) {
                Verdict first = limiter.consume(bucket, key);
                Verdict second = limiter.consume(bucket, key);
                assertThat(first.outcome()).as("%s %s", bucket.name(), key).isEqualTo(Outcome.ALLOWED);
                assertThat(List.of(first.remaining(), second.remaining())).as("%s %s", bucket.name(), key)
                        .containsExactly(4L, 3L);
                counters.add("rl-test:{" + bucket.name() + ":" + key + "}");
            }
        }

        Map<Integer, Set<String>> keysByNode = new HashMap<>();
        for (RedisServer node : cluster.nodes()) {
            try (Jedis direct = new Jedis("127.0.0.1", node.port())) {
                keysByNode.put(node.port(), direct.keys("rl-test:{spread*")); // KEYS lists the node's own keys
            }
        }
        assertThat(keysByNode.values()).as("keys per node %s", keysByNode).allSatisfy(keys ->
                assertThat(keys).isNotEmpty());
        List<String> stored = keysByNode.values().stream().flatMap(Set::stream).toList();
        assertThat(stored).as("each counter on exactly one node").containsExactlyInAnyOrderElementsOf(counters);

        for (int b = 0; b < 30; b++) {
            limiter.reset(bucket("spread" + b, 5, Duration.ofSeconds(60)), "a");
        }
        for (RedisServer node : cluster.nodes()) {
            try (Jedis direct = new Jedis("127.0.0.1", node.port())) {
                assertThat(direct.keys("rl-test:{spread*:a}")).as("reset on port %d", node.port()).isEmpty();
            }
        }
        assertThat(limiter.consume(bucket("spread0", 5, Duration.ofSeconds(60)), "a").remaining()).isEqualTo(4);
        assertThat(monitor.errors()).as("failed store calls").isZero();
    }

    @Test
    @DisplayName("a slot moved to another master after the client cached it: the MOVED reply is followed once and the decision succeeds")
    void followsMovedSlot() {
        Bucket bucket = bucket("moved", 5, Duration.ofSeconds(60));
        String key = "rl-test:{" + bucket.name() + ":k}";
        assertThat(limiter.consume(bucket, "k").remaining()).isEqualTo(4); // the client now knows the slot's node

        RedisServer owner = null;
        String targetId = null;
        int slot;
        try (Jedis any = new Jedis("127.0.0.1", cluster.nodes().get(0).port())) {
            slot = (int) any.clusterKeySlot(key);
        }
        for (RedisServer node : cluster.nodes()) {
            try (Jedis direct = new Jedis("127.0.0.1", node.port())) {
                if (!direct.keys(key).isEmpty()) { // KEYS lists the node's own keys, never redirects
                    owner = node;
                    direct.del(key); // an empty slot can be handed over without migrating keys
                }
            }
        }
        assertThat(owner).isNotNull();
        for (RedisServer node : cluster.nodes()) {
            if (node != owner) {
                try (Jedis direct = new Jedis("127.0.0.1", node.port())) {
                    targetId = direct.clusterMyId();
                }
                break;
            }
        }
        for (RedisServer node : cluster.nodes()) {
            try (Jedis direct = new Jedis("127.0.0.1", node.port())) {
                direct.clusterSetSlotNode(slot, targetId);
            }
        }

        Verdict afterMove = limiter.consume(bucket, "k");

        assertThat(afterMove.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(afterMove.remaining()).isEqualTo(4);
        assertThat(monitor.errors()).as("failed store calls").isZero();
    }

    @Test
    @DisplayName("two buckets whose keys live in different slots, in one call: one script run per slot, both counted; a refusal of the first leaves the second uncounted")
    void twoBucketsInOneCall() throws Exception {
        String name = bucket("multi", 1, Duration.ofSeconds(1)).name();
        while (slot(name + "-first") == slot(name + "-second")) {
            name += "x"; // one script call would then do: not the case under test
        }
        SeveralItems.assertTwoBuckets(store, jedis, name); // one call for both would fail with CROSSSLOT
    }

    @Test
    @DisplayName("refunds of two buckets whose keys live in different slots, in one call: one refund.lua run per slot, "
            + "each count lowered on its own master")
    void refundsInTwoSlots() throws Exception {
        String name = bucket("refund-slots", 1, Duration.ofSeconds(1)).name();
        while (slot(name + "-first") == slot(name + "-second")) {
            name += "x"; // one script call would then do: not the case under test
        }
        Bucket first = Bucket.of(name + "-first", 5, Duration.ofSeconds(60));
        Bucket second = Bucket.of(name + "-second", 5, Duration.ofSeconds(60));
        store.consume(List.of(new StoreItem(first, "k", 3), new StoreItem(second, "k", 2)));
        String firstKey = "rl-test:{" + first.name() + ":k}";
        String secondKey = "rl-test:{" + second.name() + ":k}";

        store.refund(List.of(new StoreRefund(first, "k", 2, new long[] {jedis.commands().pttl(firstKey)}),
                new StoreRefund(second, "k", 1, new long[] {jedis.commands().pttl(secondKey)})));

        assertThat(jedis.commands().get(firstKey)).isEqualTo("1"); // one call for both would fail with CROSSSLOT
        assertThat(jedis.commands().get(secondKey)).isEqualTo("1");
    }

    @Test
    @DisplayName("permits of two buckets whose keys live in different slots, given back and renewed in one call: one "
            + "permits.lua run per slot, answers in the permits' order")
    void permitsInTwoSlots() throws Exception {
        String name = bucket("permit-slots", 1, Duration.ofSeconds(1)).name();
        while (slot(name + "-first") == slot(name + "-second")) {
            name += "x"; // one script call would then do: not the case under test
        }
        Bucket first = Bucket.concurrency(name + "-first", 2, Duration.ofSeconds(30),
                dev.ratelimiter.OutagePolicy.FALLBACK);
        Bucket second = Bucket.concurrency(name + "-second", 2, Duration.ofSeconds(30),
                dev.ratelimiter.OutagePolicy.FALLBACK);
        StorePermit a = new StorePermit(first, "k", 1);
        StorePermit b = new StorePermit(second, "k", 2);
        StorePermit c = new StorePermit(first, "k", 3);
        assertThat(store.take(a)).containsExactly(1, 1, 0);
        assertThat(store.take(b)).containsExactly(1, 1, 0);

        // one call for both would fail with CROSSSLOT
        assertThat(store.renew(List.of(a, b, c))).containsExactly(1, 1, 0);
        store.giveBack(List.of(a, b, c));
        assertThat(jedis.commands().exists("rl-test:{" + first.name() + ":k}:permits")).isFalse();
        assertThat(jedis.commands().exists("rl-test:{" + second.name() + ":k}:permits")).isFalse();
    }

    private static int slot(String bucket) {
        return redis.clients.jedis.util.JedisClusterCRC16.getSlot("rl-test:{" + bucket + ":k}");
    }
}
