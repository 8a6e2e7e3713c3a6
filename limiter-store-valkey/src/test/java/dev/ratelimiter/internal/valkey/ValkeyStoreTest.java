package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.Capability;
import dev.ratelimiter.contract.ContractTime;
import dev.ratelimiter.contract.RateLimiterContract;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.verdict.Permits;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The contract suite against Valkey/Redis ({@link ValkeyTarget}) with short real windows: the store's key expiry
 * times the windows, so time passes for real (waited for with Awaitility).
 */
class ValkeyStoreTest extends RateLimiterContract {

    /** Why the cases that step the clock do not run here. */
    static final String CLOCK_STEPS = "the store times windows by key expiry (PEXPIRE, PTTL) on the Valkey server's "
            + "own clock, which the test cannot step and the limiter's clock does not reach";

    private ValkeyClient jedis;
    private ValkeyStore store;
    private ValkeyClient replicaClient; // the second replica's, if the case asked for one
    private Limiter replica;

    static ValkeySettings settings(String url) {
        return new ValkeySettings(ValkeySettings.Mode.STANDALONE, url, List.of(), Optional.empty(),
                Optional.empty(), Optional.empty(), Duration.ofSeconds(2), "rl-test:", 32, Optional.empty(),
                Optional.empty());
    }

    @Override
    protected Limiter newLimiter(InstantSource clock) {
        jedis = ValkeyClientFactory.create(settings(ValkeyTarget.url()));
        store = new ValkeyStore(() -> jedis, "rl-test:", clock); // the library's clock: calendar boundaries
        return new StoreLimiter(store,
                new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE),
                RateLimiterMetrics.NONE);
    }

    /**
     * A second replica: a chain of its own over a store of its own, with its own client of the same server, built
     * at the case's first call and closed after it, as the first is.
     */
    @Override
    protected Limiter replica() {
        if (replica == null) {
            ValkeyClient client = ValkeyClientFactory.create(settings(ValkeyTarget.url()));
            replicaClient = client;
            replica = new StoreLimiter(new ValkeyStore(() -> client, "rl-test:", clock),
                    new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE),
                    RateLimiterMetrics.NONE);
        }
        return replica;
    }

    @AfterEach
    void closeClient() {
        jedis.close();
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

    @Override
    protected Map<String, String> casesNotRun() {
        String reason = "needs instants finer than the store's own clock allows a test to hit; covered with whole "
                + "seconds in ValkeyStoreTest";
        return Map.of(
                "windowEndsExactlyAfterWindow", reason,
                "deniedAttemptsDoNotExtendWindow", reason,
                "retryAfterRoundsUp", "the store times the window; a test cannot stop its clock at t = 10.3 s "
                        + "(Retry-After rounding is checked on the Verdict and with real 2 s windows here)",
                "retryAfterWithinOneToWindow", "would take a whole 60 s window of real time; checked on a 2 s "
                        + "window in ValkeyStoreTest",
                "windowsResetIndependently", "needs each window's end at an exact instant (10 s, 50 s); that "
                        + "windows end apart is checked in real time by burstRefusalSpendsNoSustainedQuota, and the "
                        + "expiry of each window's key by windowKeys here",
                "clockSteppedBackKeepsNoWindowShutLonger", CLOCK_STEPS,
                "clockJumpingBothWaysKeepsNoWindowShutLonger", CLOCK_STEPS);
    }

    @Test
    @DisplayName("real time: denied attempts do not extend a 2 s window, and Retry-After stays in 1..2")
    void deniedAttemptsDoNotExtendRealWindow() {
        Bucket bucket = bucket("real", 1, Duration.ofSeconds(2));
        long start = System.nanoTime();
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        // Counted from the first call's answer: the window had opened by then, however long the call took.
        long opened = System.nanoTime();
        await().atMost(Duration.ofSeconds(3)).until(() -> System.nanoTime() - opened >= 1_000_000_000L);
        Verdict denied = limiter.consume(bucket, "k");
        assertThat(denied.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(denied.retryAfterSeconds()).isBetween(1L, 2L);
        assertThat(denied.resetAfter()).isLessThanOrEqualTo(Duration.ofMillis(1_000));
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(50))
                .until(() -> limiter.consume(bucket, "k").outcome() == Outcome.ALLOWED);
        assertThat(System.nanoTime() - start).as("the window ended about 2 s after the first attempt")
                .isBetween(1_900_000_000L, 4_000_000_000L);
    }

    @Test
    @DisplayName("keys in the store are <prefix>{<bucket>:<key>}, with an expiry, and hold no clear text of the caller")
    void keyLayout() {
        Bucket bucket = bucket("layout", 5, Duration.ofSeconds(60));
        limiter.consume(bucket, "hashed-key");
        String key = "rl-test:{" + bucket.name() + ":hashed-key}";
        assertThat(jedis.commands().get(key)).isEqualTo("1");
        assertThat(jedis.commands().pttl(key)).isBetween(1L, 60_000L);
    }

    @Test
    @DisplayName("several windows: one key per window, <prefix>{<bucket>:<key>}:<window>, each with its own expiry, all in one cluster slot; a refusal writes nothing")
    void windowKeys() {
        Bucket bucket = Bucket.of(bucket("windows", 1, Duration.ofSeconds(1)).name(),
                List.of(new Limit(2, Duration.ofSeconds(10)), new Limit(5, Duration.ofHours(1))),
                dev.ratelimiter.OutagePolicy.FALLBACK);
        limiter.consume(bucket, "hashed-key", 2);
        String tag = "rl-test:{" + bucket.name() + ":hashed-key}";
        assertThat(jedis.commands().get(tag + ":10s")).isEqualTo("2");
        assertThat(jedis.commands().get(tag + ":1h")).isEqualTo("2");
        assertThat(jedis.commands().pttl(tag + ":10s")).isBetween(1L, 10_000L);
        assertThat(jedis.commands().pttl(tag + ":1h")).isBetween(3_590_000L, 3_600_000L);
        assertThat(redis.clients.jedis.util.JedisClusterCRC16.getSlot(tag + ":10s"))
                .isEqualTo(redis.clients.jedis.util.JedisClusterCRC16.getSlot(tag + ":1h"));
        assertThat(limiter.consume(bucket, "hashed-key").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(jedis.commands().get(tag + ":1h")).as("the refusal counted nothing").isEqualTo("2");
        assertThat(jedis.commands().exists(tag)).as("no key of the one-window layout").isFalse();
    }

    @Test
    @DisplayName("two buckets in one call (one script run): both counted; a refusal of the first leaves the second uncounted")
    void twoBucketsInOneCall() throws Exception {
        SeveralItems.assertTwoBuckets(store, jedis, bucket("multi", 1, Duration.ofSeconds(1)).name());
    }

    @Test
    @DisplayName("token bucket: <prefix>{<bucket>:<key>}:tokens holds the sub-millisecond part, expires when the "
            + "bucket is full (PTTL = the time to fill, rounded up), and is gone once full")
    void tokenBucketKey() {
        // 3 per 2 s: a token every 666 666 us, so one call owes 666 666 us: PX 667 ms, value 334 (us over). Two
        // seconds rather than one, so that a loaded machine reads the key before it expires.
        Bucket bucket = tokenBucket("tb-layout", 0, new Limit(3, Duration.ofSeconds(2)));
        String key = "rl-test:{" + bucket.name() + ":hashed-key}:tokens";
        assertThat(limiter.consume(bucket, "hashed-key").remaining()).isEqualTo(2);
        assertThat(jedis.commands().get(key)).isEqualTo("334");
        assertThat(jedis.commands().pttl(key)).isBetween(1L, 667L);
        assertThat(jedis.commands().exists("rl-test:{" + bucket.name() + ":hashed-key}"))
                .as("no fixed-window counter").isFalse();
        limiter.consume(bucket, "hashed-key", 2);
        assertThat(jedis.commands().pttl(key)).as("three tokens owed: at most 2 s to fill").isBetween(1_334L, 2_001L);
        assertThat(limiter.consume(bucket, "hashed-key").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(jedis.commands().pttl(key)).as("a refusal wrote nothing").isLessThanOrEqualTo(2_001L);
        await().atMost(Duration.ofSeconds(6)).pollInterval(Duration.ofMillis(50))
                .until(() -> !jedis.commands().exists(key));
        assertThat(limiter.consume(bucket, "hashed-key", 0).remaining()).as("full once the key is gone")
                .isEqualTo(3);
    }

    @Test
    @DisplayName("token bucket of several windows: <prefix>{<bucket>:<key>}:tokens:<window>, each expiring when its "
            + "window is full, all in one cluster slot")
    void tokenBucketWindowKeys() {
        Bucket bucket = tokenBucket("tb-window-keys", 0, new Limit(2, Duration.ofSeconds(10)),
                new Limit(5, Duration.ofHours(1)));
        limiter.consume(bucket, "hashed-key", 2);
        String tag = "rl-test:{" + bucket.name() + ":hashed-key}";
        assertThat(jedis.commands().pttl(tag + ":tokens:10s")).as("two tokens of 5 s").isBetween(9_000L, 10_000L);
        assertThat(jedis.commands().pttl(tag + ":tokens:1h")).as("two tokens of 12 min")
                .isBetween(1_430_000L, 1_440_000L);
        assertThat(jedis.commands().get(tag + ":tokens:10s")).isEqualTo("0");
        assertThat(redis.clients.jedis.util.JedisClusterCRC16.getSlot(tag + ":tokens:10s"))
                .isEqualTo(redis.clients.jedis.util.JedisClusterCRC16.getSlot(tag));
        assertThat(jedis.commands().exists(tag + ":10s")).as("no fixed-window counter").isFalse();
    }

    @Test
    @DisplayName("token bucket: a key found without an expiry reads as a full bucket and does not stay without one")
    void tokenBucketKeyWithoutExpiry() {
        Bucket bucket = tokenBucket("tb-persisted", 0, new Limit(4, Duration.ofSeconds(60)));
        String key = "rl-test:{" + bucket.name() + ":k}:tokens";
        jedis.commands().set(key, "0");
        assertThat(limiter.consume(bucket, "k", 0).remaining()).as("a check").isEqualTo(4);
        assertThat(jedis.commands().exists(key)).as("removed: a full bucket has no key").isFalse();
        jedis.commands().set(key, "0");
        assertThat(limiter.consume(bucket, "k").remaining()).isEqualTo(3);
        assertThat(jedis.commands().pttl(key)).as("rewritten with the time to fill").isBetween(1L, 15_000L);
    }

    @Test
    @DisplayName("sliding window: <prefix>{<bucket>:<key>}:sliding holds '<cur> <prev>' and expires one window after "
            + "the current one ends; the store answers cur, prev and the time until the current window ends")
    void slidingWindowKey() throws Exception {
        Bucket bucket = slidingWindow("sw-layout", new Limit(5, Duration.ofSeconds(60)));
        String key = "rl-test:{" + bucket.name() + ":hashed-key}:sliding";
        assertThat(store.consume(List.of(new StoreItem(bucket, "hashed-key", 0))))
                .as("a check on a key without state: nothing counted, the window's whole length")
                .containsExactly(1, 0, 0, 60_000);
        assertThat(jedis.commands().exists(key)).as("a check writes nothing").isFalse();

        long[] answer = store.consume(List.of(new StoreItem(bucket, "hashed-key", 2)));
        assertThat(answer).hasSize(StoreItem.answerLength(bucket)).startsWith(1, 2, 0);
        assertThat(answer[3]).as("the window opened at this call").isBetween(59_900L, 60_000L);
        assertThat(jedis.commands().get(key)).isEqualTo("2 0");
        assertThat(jedis.commands().pttl(key)).as("the current window's end + W").isBetween(119_900L, 120_000L);
        assertThat(jedis.commands().exists("rl-test:{" + bucket.name() + ":hashed-key}"))
                .as("no fixed-window counter").isFalse();

        assertThat(store.consume(List.of(new StoreItem(bucket, "hashed-key", 4))))
                .as("refused: 2 + 4 > 5, and nothing written").startsWith(0, 2, 0);
        assertThat(jedis.commands().get(key)).isEqualTo("2 0");
    }

    @Test
    @DisplayName("sliding window: a write within the key's window keeps its expiry (the window's end never moves); "
            + "once the window ends, its count becomes the previous one and the key lives one window more; after "
            + "two windows with nothing counted the key is gone; its expiry is never above 2 x W")
    void slidingWindowKeyExpiry() throws Exception {
        Bucket bucket = slidingWindow("sw-expiry", new Limit(5, Duration.ofSeconds(1)));
        String key = "rl-test:{" + bucket.name() + ":k}:sliding";
        StoreItem one = new StoreItem(bucket, "k", 1);
        store.consume(List.of(one));
        long opened = jedis.commands().pttl(key);
        assertThat(opened).isBetween(1_900L, 2_000L);
        long firstWrite = System.nanoTime();
        await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(20))
                .until(() -> System.nanoTime() - firstWrite >= 300_000_000L);

        long[] within = store.consume(List.of(one));
        assertThat(within).startsWith(1, 2, 0);
        assertThat(within[3]).as("the same window, 300 ms on").isBetween(1L, 700L);
        assertThat(jedis.commands().get(key)).isEqualTo("2 0");
        assertThat(jedis.commands().pttl(key)).as("the expiry kept: the window's end did not move")
                .isLessThanOrEqualTo(opened - 250).isGreaterThan(1_000L);

        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20))
                .until(() -> jedis.commands().pttl(key) <= 900);
        long[] next = store.consume(List.of(one));
        assertThat(next).as("the next window: this call, and the previous 2 (2 x r / 1000 <= 5 - 0 - 1)")
                .startsWith(1, 1, 2);
        assertThat(next[3]).isBetween(1L, 900L);
        assertThat(jedis.commands().get(key)).as("the previous window's 0 dropped").isEqualTo("1 2");
        assertThat(jedis.commands().pttl(key)).as("the new current window's end + W: at most 2 W")
                .isGreaterThan(1_000L).isLessThanOrEqualTo(1_900L);

        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20))
                .until(() -> !jedis.commands().exists(key));
        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 0)))).as("two windows idle: no state")
                .containsExactly(1, 0, 0, 1_000);
    }

    @Test
    @DisplayName("sliding window: a key found without an expiry reads as no state and is removed, so no key lives "
            + "for ever; one whose expiry is beyond 2 x W (the window was shortened) keeps its counts, at most one "
            + "window to run, and a write brings its expiry to 2 x W")
    void slidingWindowKeyWithoutExpiry() throws Exception {
        Bucket bucket = slidingWindow("sw-persisted", new Limit(4, Duration.ofSeconds(2)));
        String key = "rl-test:{" + bucket.name() + ":k}:sliding";
        jedis.commands().set(key, "4 4");
        assertThat(store.consume(List.of(new StoreItem(bucket, "k", 0)))).as("a check")
                .containsExactly(1, 0, 0, 2_000);
        assertThat(jedis.commands().exists(key)).as("removed").isFalse();
        jedis.commands().set(key, "4 4");
        assertThat(limiter.consume(bucket, "k").remaining()).isEqualTo(3);
        assertThat(jedis.commands().get(key)).isEqualTo("1 0");
        assertThat(jedis.commands().pttl(key)).as("rewritten with an expiry of 2 W").isBetween(3_900L, 4_000L);

        jedis.commands().psetex(key, 60_000, "2 1"); // as a 30 s window would have left it
        long[] clamped = store.consume(List.of(new StoreItem(bucket, "k", 1)));
        assertThat(clamped).as("its counts, r = W: 1 x 2000 / 2000 <= 4 - 2 - 1").containsExactly(1, 3, 1, 2_000);
        assertThat(jedis.commands().get(key)).isEqualTo("3 1");
        assertThat(jedis.commands().pttl(key)).isBetween(3_900L, 4_000L);
    }

    @Test
    @DisplayName("sliding window of several windows: <prefix>{<bucket>:<key>}:sliding:<window>, all in one cluster "
            + "slot; a bucket's fixed-window, token-bucket and sliding-window keys never collide, and each "
            + "algorithm reads and resets only its own")
    void slidingWindowKeysBesideOtherAlgorithms() {
        List<Limit> limits = List.of(new Limit(2, Duration.ofSeconds(10)),
                new Limit(5, Duration.ofHours(1)));
        Bucket sliding = slidingWindow("sw-beside", limits.toArray(Limit[]::new));
        Bucket fixed = Bucket.of(sliding.name(), limits, dev.ratelimiter.OutagePolicy.FALLBACK);
        Bucket tokens = Bucket.of(sliding.name(), limits, dev.ratelimiter.OutagePolicy.FALLBACK,
                Algorithm.TOKEN_BUCKET, 0);
        String tag = "rl-test:{" + sliding.name() + ":k}";
        assertThat(store.keys().counterKeys(sliding, "k")).containsExactly(tag + ":sliding:10s", tag + ":sliding:1h")
                .doesNotContainAnyElementsOf(List.of(store.keys().counterKeys(fixed, "k")))
                .doesNotContainAnyElementsOf(List.of(store.keys().counterKeys(tokens, "k")));

        assertThat(limiter.consume(fixed, "k", 2).remaining()).isZero();
        assertThat(limiter.consume(tokens, "k", 2).remaining()).isZero();
        assertThat(limiter.consume(sliding, "k").windows()).extracting(Verdict.Window::remaining)
                .as("nothing of the other algorithms counted").containsExactly(1L, 4L);
        assertThat(jedis.commands().get(tag + ":sliding:10s")).isEqualTo("1 0");
        assertThat(jedis.commands().get(tag + ":sliding:1h")).isEqualTo("1 0");
        assertThat(jedis.commands().pttl(tag + ":sliding:1h")).isBetween(7_190_000L, 7_200_000L);
        assertThat(jedis.commands().get(tag + ":10s")).as("the fixed window's counter untouched").isEqualTo("2");
        assertThat(redis.clients.jedis.util.JedisClusterCRC16.getSlot(tag + ":sliding:10s"))
                .isEqualTo(redis.clients.jedis.util.JedisClusterCRC16.getSlot(tag + ":sliding:1h"))
                .isEqualTo(redis.clients.jedis.util.JedisClusterCRC16.getSlot(tag + ":10s"));

        limiter.reset(sliding, "k");
        assertThat(jedis.commands().exists(tag + ":sliding:10s", tag + ":sliding:1h")).isZero();
        assertThat(limiter.consume(fixed, "k", 0).outcome()).as("a reset of the sliding window's keys only")
                .isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(tokens, "k", 0).outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("concurrency bucket: <prefix>{<bucket>:<key>}:permits is a sorted set in the bucket's hash tag, of "
            + "permit ids as decimal text (all 64 bits, nothing of the caller) scored by their leases' deadlines on "
            + "the server's clock; it expires at the latest deadline and is gone once its last permit is given back")
    void permitsKey() throws Exception {
        Bucket bucket = concurrencyBucket("permits-layout", 3, Duration.ofSeconds(30));
        String key = "rl-test:{" + bucket.name() + ":hashed-key}:permits";
        StorePermit lowest = new StorePermit(bucket, "hashed-key", Long.MIN_VALUE);
        StorePermit odd = new StorePermit(bucket, "hashed-key", (1L << 53) + 1); // a double would round it
        long before = serverMillis();
        assertThat(store.take(lowest)).containsExactly(1, 1, 0);
        assertThat(store.take(odd)).containsExactly(1, 2, 0);
        long after = serverMillis();

        assertThat(store.keys().keysOf(bucket, "hashed-key")).containsExactly(key);
        assertThat(jedis.commands().type(key)).isEqualTo("zset");
        List<Tuple> leases = jedis.commands().zrangeWithScores(key, 0, -1);
        assertThat(leases).extracting(Tuple::getElement)
                .containsExactlyInAnyOrder("-9223372036854775808", "9007199254740993");
        assertThat(leases).extracting(lease -> (long) lease.getScore()).as("now + lease, on the server's clock")
                .allSatisfy(deadline -> assertThat(deadline).isBetween(before + 30_000, after + 30_000));
        assertThat(jedis.commands().pttl(key)).as("the latest deadline").isBetween(28_000L, 30_000L);
        assertThat(JedisClusterCRC16.getSlot(key)).as("the slot of the bucket's other keys")
                .isEqualTo(JedisClusterCRC16.getSlot("rl-test:{" + bucket.name() + ":hashed-key}"));

        store.giveBack(List.of(lowest, lowest));
        assertThat(jedis.commands().zcard(key)).isEqualTo(1);
        store.giveBack(List.of(odd));
        assertThat(jedis.commands().exists(key)).as("no permit held: no key").isFalse();
        assertThat(store.renew(List.of(odd))).containsExactly(0);
        assertThat(jedis.commands().exists(key)).as("a renewal takes nothing back").isFalse();
    }

    @Test
    @DisplayName("permits: a lease ended beside one still held is dropped and counted by the next take; giving back "
            + "the latest leases brings the key's expiry to the next one's; a key whose leases all ended is gone "
            + "with no call, so a dead replica leaves nothing")
    void permitsKeyExpiry() throws Exception {
        Bucket bucket = concurrencyBucket("permits-expiry", 3, Duration.ofSeconds(2));
        String key = "rl-test:{" + bucket.name() + ":k}:permits";
        StorePermit first = new StorePermit(bucket, "k", 1);
        StorePermit second = new StorePermit(bucket, "k", 2);
        StorePermit third = new StorePermit(bucket, "k", 3);
        assertThat(store.take(first)).containsExactly(1, 1, 0);
        long firstTaken = System.nanoTime(); // its lease ends at most 2 s from here
        awaitElapsed(firstTaken, 1_000);
        assertThat(store.take(second)).containsExactly(1, 2, 0);
        assertThat(store.take(third)).containsExactly(1, 3, 0);
        assertThat(jedis.commands().pttl(key)).as("the latest deadline's").isBetween(1_500L, 2_000L);
        store.giveBack(List.of(second, third));
        assertThat(jedis.commands().pttl(key)).as("the first's deadline, the latest left").isBetween(1L, 1_000L);

        assertThat(store.take(second)).containsExactly(1, 2, 0); // its lease ends at least 3 s after firstTaken
        awaitElapsed(firstTaken, 2_100);
        assertThat(store.take(new StorePermit(bucket, "k", StorePermit.CHECK))).as("the first's lease ended")
                .containsExactly(1, 1, 1);
        assertThat(store.renew(List.of(first, second))).containsExactly(0, 1);
        assertThat(jedis.commands().zrange(key, 0, -1)).containsExactly("2");
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> !jedis.commands().exists(key));
    }

    @Test
    @DisplayName("permits.lua answers as Java's Permits.Leases does, over a random run of takes, checks, takes sent "
            + "again, give-backs and renewals of several permits (some twice, some never taken) on one key")
    void permitsAsJavaLeases() throws Exception {
        Bucket bucket = concurrencyBucket("permits-as-java", 3, Duration.ofSeconds(60));
        long[] ids = {StorePermit.CHECK, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 53, (1L << 53) + 1};
        Permits.Leases inJava = new Permits.Leases(); // at now 0 with a 60 s lease: no lease ends during the run
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int step = 0; step < 300; step++) {
            List<StorePermit> permits = new ArrayList<>();
            for (int i = random.nextInt(3); i >= 0; i--) {
                permits.add(new StorePermit(bucket, "k", ids[random.nextInt(ids.length)]));
            }
            String as = "seed " + seed + ", step " + step + ", " + permits.stream().map(StorePermit::id).toList();
            switch (random.nextInt(3)) {
                case 0 -> assertThat(store.take(permits.get(0))).as("take %s", as)
                        .containsExactly(inJava.take(permits.get(0).id(), 3, 0, 60_000));
                case 1 -> {
                    store.giveBack(permits);
                    permits.forEach(permit -> inJava.giveBack(permit.id()));
                }
                default -> assertThat(store.renew(permits)).as("renew %s", as).containsExactly(permits.stream()
                        .mapToLong(permit -> inJava.renew(permit.id(), 0, 60_000) ? 1 : 0).toArray());
            }
            assertThat(store.take(new StorePermit(bucket, "k", StorePermit.CHECK))).as("held after %s", as)
                    .containsExactly(inJava.take(StorePermit.CHECK, 3, 0, 60_000));
        }
    }

    @Test
    @DisplayName("permits.lua after SCRIPT FLUSH is sent again by EVAL, which caches it; a server out of reach fails "
            + "a take, a give-back and a renewal with a StoreException, TRANSIENT, as a decision")
    void permitsScriptReloadedAndFailuresClassified() throws Exception {
        Bucket bucket = concurrencyBucket("permits-flush", 1, Duration.ofSeconds(30));
        StorePermit permit = new StorePermit(bucket, "k", 7);
        // A server of its own: a flush of the shared one would race the script checks of classes running beside it.
        try (RedisServer server = RedisServer.start();
             ValkeyClient own = ValkeyClientFactory.create(settings(server.url()))) {
            ValkeyStore flushed = new ValkeyStore(() -> own, "rl-test:");
            assertThat(flushed.take(permit)).containsExactly(1, 1, 0);
            own.commands().scriptFlush();
            assertThat(flushed.renew(List.of(permit))).containsExactly(1);
            assertThat(own.commands().scriptExists(List.of(ValkeyScript.PERMITS.sha()))).containsExactly(true);
        }
        try (ValkeyClient down = ValkeyClientFactory.create(settings("redis://127.0.0.1:1"))) {
            ValkeyStore unreachable = new ValkeyStore(() -> down, "rl-test:");
            java.util.function.Consumer<StoreException> isTransient =
                    e -> assertThat(e.kind()).isEqualTo(FailureKind.TRANSIENT);
            assertThatThrownBy(() -> unreachable.take(permit))
                    .isInstanceOfSatisfying(StoreException.class, isTransient);
            assertThatThrownBy(() -> unreachable.giveBack(List.of(permit)))
                    .isInstanceOfSatisfying(StoreException.class, isTransient);
            assertThatThrownBy(() -> unreachable.renew(List.of(permit)))
                    .isInstanceOfSatisfying(StoreException.class, isTransient);
        }
    }

    /** Now on the server's clock (TIME), in milliseconds. */
    private long serverMillis() {
        List<?> time = (List<?>) jedis.commands().sendCommand(Protocol.Command.TIME);
        return Long.parseLong(new String((byte[]) time.get(0), StandardCharsets.US_ASCII)) * 1_000
                + Long.parseLong(new String((byte[]) time.get(1), StandardCharsets.US_ASCII)) / 1_000;
    }

    private static void awaitElapsed(long since, long millis) {
        await().atMost(Duration.ofMillis(millis + 5_000)).pollInterval(Duration.ofMillis(10))
                .until(() -> System.nanoTime() - since >= millis * 1_000_000);
    }
}
