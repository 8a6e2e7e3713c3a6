package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What {@code refund.lua} does to the keys themselves, read directly, in the branches the contract suite
 * (through {@link ValkeyStoreTest}) does not reach: keys that are missing, expired or without an expiry, a count
 * given back to 0, a sliding window that rolled on, a token bucket given back to full, a flushed script cache, and a
 * store that cannot be reached.
 */
class ValkeyRefundTest {

    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private ValkeyClient client;
    private ValkeyStore store;

    @BeforeEach
    void connect() {
        client = ValkeyClientFactory.create(ValkeyStoreTest.settings(ValkeyTarget.url()));
        store = new ValkeyStore(() -> client, "rl-test:");
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    @DisplayName("a key never counted, or whose window expired, gets no key back from a refund, in any algorithm")
    void missingOrExpiredKeyCreatesNothing() throws Exception {
        for (Bucket bucket : List.of(fixed("missing", 60_000), tokens("missing-tokens"), sliding("missing-sliding"))) {
            String key = store.keys().counterKeys(bucket, "k")[0];
            store.refund(List.of(refund(bucket, 1, 30_000)));
            assertThat(client.commands().exists(key)).as("never counted: %s", key).isFalse();

            store.consume(List.of(new StoreItem(bucket, "k", 1)));
            client.commands().pexpire(key, 1);
            await().atMost(Duration.ofSeconds(5)).until(() -> !client.commands().exists(key));
            store.refund(List.of(refund(bucket, 1, 30_000)));
            assertThat(client.commands().exists(key)).as("expired: %s", key).isFalse();
            assertThat(client.commands().pttl(key)).isEqualTo(-2L);
        }
    }

    @Test
    @DisplayName("fixed window: a count given back to 0 keeps its key and its end, which the next counted call "
            + "does not move")
    void fixedWindowAtZeroKeepsItsEnd() throws Exception {
        Bucket bucket = fixed("zero", 60_000);
        String key = store.keys().counterKeys(bucket, "k")[0];
        store.consume(List.of(new StoreItem(bucket, "k", 1)));
        client.commands().pexpire(key, 30_000); // an end well inside the window, so a reopened one would show

        store.refund(List.of(refund(bucket, 5, 30_000)));
        assertThat(client.commands().get(key)).isEqualTo("0");
        assertThat(client.commands().pttl(key)).isBetween(1L, 30_000L);

        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 1)))[0]).as("allowed").isEqualTo(1L);
        assertThat(client.commands().get(key)).isEqualTo("1");
        assertThat(client.commands().pttl(key)).as("the window's end did not move").isBetween(1L, 30_000L);
    }

    @Test
    @DisplayName("fixed window: a counter found without an expiry names no window's end, so a refund leaves it "
            + "(the next decision gives it one)")
    void keyWithoutExpiryLeftAlone() throws Exception {
        Bucket bucket = fixed("no-expiry", 60_000);
        String key = store.keys().counterKeys(bucket, "k")[0];
        client.commands().set(key, "3");
        store.refund(List.of(refund(bucket, 1, 30_000)));
        assertThat(client.commands().get(key)).isEqualTo("3");
        assertThat(client.commands().pttl(key)).isEqualTo(-1L);
    }

    @Test
    @DisplayName("sliding window: the current count is lowered with its expiry kept and prev untouched; once the "
            + "window rolled on (PTTL at most W) the key is left as it is")
    void slidingWindowByPttl() throws Exception {
        Bucket bucket = sliding("pttl");
        String key = store.keys().counterKeys(bucket, "k")[0];
        client.commands().psetex(key, 15_000, "3 1"); // the current window ends in 5 s

        store.refund(List.of(refund(bucket, 5, 5_000)));
        assertThat(client.commands().get(key)).isEqualTo("0 1");
        assertThat(client.commands().pttl(key)).as("KEEPTTL").isBetween(10_001L, 15_000L);

        client.commands().psetex(key, 5_000, "2 1"); // rolled on: its 2 now weigh as the previous window's
        store.refund(List.of(refund(bucket, 2, 5_000)));
        assertThat(client.commands().get(key)).isEqualTo("2 1");
        assertThat(client.commands().pttl(key)).isBetween(1L, 5_000L);
    }

    @Test
    @DisplayName("token bucket: a refund shortens the key's expiry (its time until full) by cost x interval, and a "
            + "bucket given back to full has no key")
    void tokenBucketShortensThenDeletes() throws Exception {
        Bucket bucket = tokens("shorten"); // 4 tokens a minute: one every 15 s
        String key = store.keys().counterKeys(bucket, "k")[0];
        store.consume(List.of(new StoreItem(bucket, "k", 2)));
        assertThat(client.commands().pttl(key)).isBetween(29_000L, 30_000L);

        store.refund(List.of(refund(bucket, 1, 0)));
        assertThat(client.commands().pttl(key)).isBetween(14_000L, 15_000L);

        store.refund(List.of(refund(bucket, 5, 0)));
        assertThat(client.commands().exists(key)).isFalse();
    }

    @Test
    @DisplayName("SCRIPT FLUSH before a refund: refund.lua is sent again by EVAL, which caches it, and the count is "
            + "given back")
    void scriptFlushed() throws Exception {
        // A server of its own: a flush of the shared one would race the script checks of classes running beside it.
        try (RedisServer server = RedisServer.start();
             ValkeyClient own = ValkeyClientFactory.create(ValkeyStoreTest.settings(server.url()))) {
            ValkeyStore flushed = new ValkeyStore(() -> own, "rl-test:");
            Bucket bucket = fixed("flush", 60_000);
            String key = flushed.keys().counterKeys(bucket, "k")[0];
            flushed.consume(List.of(new StoreItem(bucket, "k", 2)));
            long endsIn = own.commands().pttl(key);
            own.commands().scriptFlush();

            flushed.refund(List.of(refund(bucket, 1, endsIn)));
            assertThat(own.commands().get(key)).isEqualTo("1");
            assertThat(own.commands().scriptExists(List.of(ValkeyScript.REFUND.sha()))).containsExactly(true);
        }
    }

    @Test
    @DisplayName("a store that cannot be reached fails a refund with a StoreException classified as a decision's")
    void unreachableStoreThrows() {
        ValkeyClient down = ValkeyClientFactory.create(ValkeyStoreTest.settings("redis://127.0.0.1:1"));
        try {
            ValkeyStore unreachable = new ValkeyStore(() -> down, "rl-test:");
            assertThatThrownBy(() -> unreachable.refund(List.of(refund(fixed("down", 60_000), 1, 30_000))))
                    .isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.kind()).isEqualTo(FailureKind.TRANSIENT));
        } finally {
            down.close();
        }
    }

    @Test
    @DisplayName("refund.lua's arguments: cost, the count of windows marking the algorithm, then per window a "
            + "window's length and the refund's end, or a token bucket's capacity and interval")
    void arguments() {
        Bucket two = Bucket.of("args", List.of(new Limit(2, Duration.ofSeconds(60)),
                new Limit(3, Duration.ofHours(1))), OutagePolicy.FALLBACK);
        assertThat(ScriptArgumentEncoder.refundArguments(new StoreRefund(two, "k", 2, new long[] {123, 0})))
                .containsExactly("2", "2", "60000", "123", "3600000", "0");
        assertThat(ScriptArgumentEncoder.refundArguments(new StoreRefund(sliding("args"), "k", 1, new long[] {5_000})))
                .containsExactly("1", "1001", "10000", "5000");
        assertThat(ScriptArgumentEncoder.refundArguments(new StoreRefund(tokens("args"), "k", 3, new long[] {0})))
                .containsExactly("3", "-1", "4", "15000000");
    }

    private Bucket fixed(String name, long windowMillis) {
        return Bucket.of("refund-" + name + "-" + run, 5, Duration.ofMillis(windowMillis));
    }

    /** 4 tokens a minute. */
    private Bucket tokens(String name) {
        return Bucket.of("refund-" + name + "-" + run, List.of(new Limit(4, Duration.ofSeconds(60))),
                OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
    }

    /** A limit of 5 in 10 s. */
    private Bucket sliding(String name) {
        return Bucket.of("refund-" + name + "-" + run, List.of(new Limit(5, Duration.ofSeconds(10))),
                OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
    }

    private static StoreRefund refund(Bucket bucket, long cost, long endsInMillis) {
        return new StoreRefund(bucket, "k", cost, new long[] {endsInMillis});
    }
}
