package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.contract.ExactnessUnderLoadContract;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.StoreItem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Valkey store's round trip of several calls, one pipeline ({@link ValkeyStore#consumeEach}): what it decides,
 * what it leaves undecided for the library to send again alone (counting nothing), and in a cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ValkeyBatchTest {

    /** One 3-master cluster for the cluster cases, started once. */
    private RedisCluster cluster;

    @BeforeAll
    void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static final Bucket BUCKET = Bucket.of("batch-" + UUID.randomUUID().toString().substring(0, 8), 3,
            Duration.ofMinutes(1));

    private static List<StoreItem> call(String key) {
        return List.of(new StoreItem(BUCKET, key, 1));
    }

    @Nested
    class Standalone {

        @Test
        @DisplayName("each call of a pipeline is decided as alone; two calls on one key count one after the other")
        void eachCallAsAlone() throws Exception {
            ValkeySettings settings = ValkeyStoreTest.settings(ValkeyTarget.url());
            try (ValkeyClient client = ValkeyClientFactory.create(settings)) {
                ValkeyStore store = new ValkeyStore(() -> client, settings.keyPrefix(), ValkeyStore.batching(settings));
                String key = UUID.randomUUID().toString();
                long[][] answers = store.consumeEach(List.of(call(key), call("other-" + key), call(key), call(key),
                        call(key)));
                assertThat(answers[0]).startsWith(1, 1);
                assertThat(answers[1]).startsWith(1, 1);
                assertThat(answers[2]).startsWith(1, 2);
                assertThat(answers[3]).startsWith(1, 3);
                assertThat(answers[4]).startsWith(0, 3); // refused: the limit is 3
            }
        }

        @Test
        @DisplayName("fixed windows and token buckets in one pipeline, and in one call: each decided by its algorithm")
        void mixedAlgorithms() throws Exception {
            ValkeySettings settings = ValkeyStoreTest.settings(ValkeyTarget.url());
            Bucket tokens = Bucket.of("batch-tokens-" + UUID.randomUUID().toString().substring(0, 8),
                    List.of(new Limit(4, Duration.ofMinutes(1))), dev.ratelimiter.OutagePolicy.FALLBACK,
                    Algorithm.TOKEN_BUCKET, 2);
            try (ValkeyClient client = ValkeyClientFactory.create(settings)) {
                ValkeyStore store = new ValkeyStore(() -> client, settings.keyPrefix(), ValkeyStore.batching(settings));
                String key = UUID.randomUUID().toString();
                StoreItem tokenItem = new StoreItem(tokens, key, 1);
                long[][] answers = store.consumeEach(List.of(call(key), List.of(tokenItem),
                        List.of(new StoreItem(BUCKET, key, 1), tokenItem), List.of(tokenItem)));
                assertThat(answers[0]).startsWith(1, 1);
                // a token of 15 s taken: 1 token missing of the burst of 2, full again in 15 s
                assertThat(answers[1]).hasSize(3).startsWith(1, 1);
                assertThat(answers[1][2]).isBetween(14_900L, 15_000L);
                assertThat(answers[2]).as("the fixed window counted twice").hasSize(6).startsWith(1, 2);
                assertThat(answers[2][3]).as("the call's token item").isEqualTo(1);
                assertThat(answers[2][4]).as("both tokens taken").isEqualTo(2);
                assertThat(answers[2][5]).isBetween(29_900L, 30_000L);
                assertThat(answers[3]).as("the bucket is empty").startsWith(0, 2);
            }
        }

        @Test
        @DisplayName("a sliding window in one pipeline among fixed windows and token buckets, alone and in calls of "
                + "several items: three numbers per window, each call decided as alone, a refusal ends its call")
        void slidingWindowAmongOthers() throws Exception {
            ValkeySettings settings = ValkeyStoreTest.settings(ValkeyTarget.url());
            String run = UUID.randomUUID().toString().substring(0, 8);
            Bucket sliding = Bucket.of("batch-sliding-" + run, List.of(new Limit(3, Duration.ofMinutes(1)),
                    new Limit(10, Duration.ofHours(1))), dev.ratelimiter.OutagePolicy.FALLBACK,
                    Algorithm.SLIDING_WINDOW, 0);
            Bucket tokens = Bucket.of("batch-sliding-tokens-" + run,
                    List.of(new Limit(4, Duration.ofMinutes(1))), dev.ratelimiter.OutagePolicy.FALLBACK,
                    Algorithm.TOKEN_BUCKET, 2);
            try (ValkeyClient client = ValkeyClientFactory.create(settings)) {
                ValkeyStore store = new ValkeyStore(() -> client, settings.keyPrefix(), ValkeyStore.batching(settings));
                String key = UUID.randomUUID().toString();
                StoreItem two = new StoreItem(sliding, key, 2);
                StoreItem one = new StoreItem(sliding, key, 1);
                StoreItem check = new StoreItem(sliding, key, 0);
                long[][] answers = store.consumeEach(List.of(call(key), List.of(two),
                        List.of(new StoreItem(BUCKET, key, 1), one), List.of(one),
                        List.of(new StoreItem(tokens, key, 1), check, new StoreItem(BUCKET, key, 1))));

                assertThat(answers[0]).startsWith(1, 1);
                assertThat(answers[1]).as("both windows: cur 2, prev 0, a new window's whole length")
                        .containsExactly(1, 2, 0, 60_000, 2, 0, 3_600_000);
                assertThat(answers[2]).as("the fixed window's 3 numbers, then the sliding window's 7")
                        .hasSize(3 + StoreItem.answerLength(sliding)).startsWith(1, 2);
                assertThat(answers[2][3]).isEqualTo(1);
                assertThat(answers[2][4]).as("the minute's window is full").isEqualTo(3);
                assertThat(answers[2][7]).as("the hour's").isEqualTo(3);
                assertThat(answers[2][6]).isBetween(59_000L, 60_000L);
                assertThat(answers[3]).as("refused: counted nothing").hasSize(StoreItem.answerLength(sliding))
                        .startsWith(0, 3, 0);
                assertThat(answers[4]).as("the token, then the check refused: the fixed window after it not decided")
                        .hasSize(3 + StoreItem.answerLength(sliding)).startsWith(1, 1);
                assertThat(answers[4][3]).isZero();
                assertThat(answers[4][4]).isEqualTo(3);
                assertThat(store.consume(call(key))).as("the fixed window counted twice before").startsWith(1, 3);
            }
        }

        @Test
        @DisplayName("after SCRIPT FLUSH a pipeline's calls go once more by EVAL, each counted once")
        void noScriptSendsTheCallsOnceMore() throws Exception {
            // A server of its own: a flush of the shared one would race the script checks of classes beside it.
            try (RedisServer server = RedisServer.start()) {
                noScriptSendsTheCallsOnceMore(ValkeyStoreTest.settings(server.url()));
            }
        }

        private void noScriptSendsTheCallsOnceMore(ValkeySettings settings) throws Exception {
            try (ValkeyClient client = ValkeyClientFactory.create(settings)) {
                ValkeyStore store = new ValkeyStore(() -> client, settings.keyPrefix(), ValkeyStore.batching(settings));
                String key = UUID.randomUUID().toString();
                client.commands().scriptFlush();

                long[][] answers = store.consumeEach(List.of(call(key), call(key)));

                assertThat(answers[0]).startsWith(1, 1);
                assertThat(answers[1]).startsWith(1, 2);
                assertThat(client.commands().scriptExists(List.of(ValkeyScript.DECIDE.sha()))).containsExactly(true); // EVAL cached it
                assertThat(store.consume(call(key))).startsWith(1, 3);
            }
        }
    }

    @Nested
    class Cluster {

        @Test
        @DisplayName("a call held by another master than the first call's, or of several slots, is left undecided")
        void callsElsewhereLeftUndecided() throws Exception {
            ValkeySettings settings = ValkeyClusterContractTest.settings(cluster.addresses());
            try (ValkeyClient client = ValkeyClientFactory.create(settings)) {
                ValkeyStore store = new ValkeyStore(() -> client, settings.keyPrefix(), ValkeyStore.batching(settings));
                String here = UUID.randomUUID().toString();
                String elsewhere = keyOnAnotherMaster(store, client, here);
                List<StoreItem> twoSlots = List.of(new StoreItem(BUCKET, here, 1), new StoreItem(BUCKET, elsewhere, 1));

                // on a new cluster the script is on no node yet: a pipeline's NOSCRIPT calls go once more by EVAL
                long[][] answers = store.consumeEach(List.of(call(here), call(elsewhere), twoSlots, call(here)));

                assertThat(answers[0]).startsWith(1, 1);
                assertThat(answers[1]).isNull(); // MOVED: not run
                assertThat(answers[2]).isNull(); // one script cannot touch two slots
                assertThat(answers[3]).startsWith(1, 2);
                assertThat(store.consume(call(elsewhere))).startsWith(1, 1); // the pipeline counted nothing there
            }
        }

        /** A key whose slot another master than {@code key}'s serves. */
        private String keyOnAnotherMaster(ValkeyStore store, ValkeyClient client, String key) {
            Object master = client.clusterNodeOf(JedisClusterCRC16.getSlot(store.keys().counterKey(BUCKET, key)));
            for (int i = 0; ; i++) {
                String candidate = key + "-" + i;
                if (!master.equals(client.clusterNodeOf(JedisClusterCRC16.getSlot(store.keys().counterKey(BUCKET,
                        candidate))))) {
                    return candidate;
                }
            }
        }
    }

    /** The exactness cases in a cluster with batching on: one queue per master. */
    @Nested
    class ClusterExactness extends ExactnessUnderLoadContract {

        private final List<AutoCloseable> stores = new ArrayList<>();

        @Override
        protected Limiter newLimiter() {
            ValkeySettings settings = ValkeyExactnessTest.generous(ValkeyClusterContractTest.settings(
                    cluster.addresses()));
            ValkeyStore store = ValkeyStore.start(settings);
            stores.add(store);
            StoreLimiter limiter = new StoreLimiter(store,
                    new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE),
                    RateLimiterMetrics.NONE);
            assertThat(limiter.batching()).isTrue();
            assertThat(store.parts()).isPresent();
            return limiter;
        }

        @Override
        protected void closeLimiter() throws Exception {
            for (AutoCloseable store : stores) {
                store.close();
            }
            stores.clear();
        }
    }
}
