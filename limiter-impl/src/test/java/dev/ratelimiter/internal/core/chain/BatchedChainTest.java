package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.OutageStatistics;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreParts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The buckets of one method through the whole chain of a shared store ({@link BatchingLimiter#consumeAll}): one
 * store call where one suffices, one per run of a part of a store of parts, the deny cache's stop and the outage
 * policy of each bucket (docs/guide.md#several-limits-on-one-method). The store counts in a {@link MapStore} and
 * records every call; keys starting with {@code a} live on part {@code node-a}, the others on {@code node-b}.
 */
class BatchedChainTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final RecordingStore store = new RecordingStore(new MapStore(clock));
    private final OutageStatistics outages = new OutageStatistics();
    private final MemoryRateLimiter fallback = new MemoryRateLimiter(clock, 100);
    private SharedStoreChain chain;

    @AfterEach
    void closeBreaker() {
        if (chain != null) {
            chain.breaker().close();
        }
    }

    private SharedStoreChain chain(boolean parts, BreakerSettings breaker, DenyCacheSettings refusals) {
        store.withParts = parts;
        chain = SharedStoreChain.of(store, new BackendMonitor("test-map", clock, RateLimiterMetrics.NONE), clock,
                fallback, outages, breaker, refusals, RateLimiterMetrics.NONE);
        return chain;
    }

    private SharedStoreChain chain() {
        return chain(false, BreakerSettings.DEFAULTS, DenyCacheSettings.OFF);
    }

    private static Bucket bucket(String name, long limit, OutagePolicy policy) {
        return Bucket.of(name, limit, Duration.ofMinutes(15), policy);
    }

    private static StoreItem item(Bucket bucket, String key) {
        return new StoreItem(bucket, key, 1);
    }

    private Verdict[] decide(StoreItem... items) {
        return BatchingLimiter.consumeAll(chain.limiter(), List.of(items));
    }

    private static List<Outcome> outcomes(Verdict[] verdicts) {
        return Arrays.stream(verdicts).map(Verdict::outcome).toList();
    }

    @Test
    @DisplayName("two buckets: one store call with both items; the first refusal stops the rest, the earlier "
            + "bucket keeps its count")
    void twoBucketsOneStoreCall() {
        chain();
        Bucket perAddress = bucket("per-address", 3, OutagePolicy.FAIL_OPEN);
        Bucket perAccount = bucket("per-account", 1, OutagePolicy.FAIL_OPEN);

        Verdict[] first = decide(item(perAddress, "a-addr"), item(perAccount, "a-alice"));

        assertThat(outcomes(first)).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED);
        assertThat(first[0].remaining()).isEqualTo(2);
        assertThat(first[1].remaining()).isZero();
        assertThat(store.calls).hasSize(1);
        assertThat(store.calls.get(0)).hasSize(2);

        Verdict[] second = decide(item(perAccount, "a-alice"), item(perAddress, "a-addr"));

        assertThat(outcomes(second)).as("the account's refusal stops the address").containsExactly(Outcome.DENIED);
        assertThat(store.calls).hasSize(2);

        Verdict[] third = decide(item(perAddress, "a-addr"), item(perAccount, "a-alice"));

        assertThat(outcomes(third)).containsExactly(Outcome.ALLOWED, Outcome.DENIED);
        assertThat(third[0].remaining()).as("the refused second call did not count it").isEqualTo(1);
        assertThat(store.calls).hasSize(3);
    }

    @Test
    @DisplayName("a store of parts: one call per run of items of one part, in order")
    void partsAreSplitIntoRuns() {
        chain(true, BreakerSettings.DEFAULTS, DenyCacheSettings.OFF);
        Bucket one = bucket("one", 5, OutagePolicy.FAIL_OPEN);
        Bucket two = bucket("two", 5, OutagePolicy.FAIL_OPEN);
        Bucket three = bucket("three", 5, OutagePolicy.FAIL_OPEN);

        Verdict[] verdicts = decide(item(one, "a-1"), item(two, "a-2"), item(three, "b-3"));

        assertThat(outcomes(verdicts)).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.ALLOWED);
        assertThat(store.calls).extracting(RecordingStore::keys)
                .containsExactly(List.of("a-1", "a-2"), List.of("b-3"));
    }

    @Test
    @DisplayName("a part whose breaker is open answers its items without a call, each by its policy; the items "
            + "after it reach their own part in a further call; the other part's breaker stays closed")
    void openPartAnswersWithoutACall() {
        chain(true, new BreakerSettings(1, Duration.ofSeconds(30), Duration.ofSeconds(30), 1),
                DenyCacheSettings.OFF);
        Bucket first = bucket("first", 5, OutagePolicy.FAIL_OPEN);
        Bucket second = bucket("second", 5, OutagePolicy.FAIL_OPEN);
        Bucket third = bucket("third", 5, OutagePolicy.FAIL_OPEN);
        store.downParts.add("node-b");
        assertThat(outcomes(decide(item(first, "b-1")))).containsExactly(Outcome.ALLOWED);
        assertThat(store.calls).as("the failed call that opened node-b's breaker").hasSize(1);
        store.calls.clear();

        Verdict[] verdicts = decide(item(first, "a-1"), item(second, "b-2"), item(third, "a-3"));

        assertThat(outcomes(verdicts)).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.ALLOWED);
        assertThat(store.calls).extracting(RecordingStore::keys)
                .containsExactly(List.of("a-1"), List.of("a-3"));
        assertThat(outages.failOpens("second")).isEqualTo(1);
        assertThat(outages.failOpens("first")).as("the failure that opened node-b").isEqualTo(1);
        assertThat(outages.failOpens("third")).isZero();
        assertThat(chain.breaker().isOpen()).isTrue();
    }

    @Test
    @DisplayName("a refusal kept in memory stops there: the items before it reach the store first, as one call; "
            + "first in order, it answers without any call")
    void denyCacheStops() {
        chain(false, BreakerSettings.DEFAULTS, new DenyCacheSettings(Duration.ofMinutes(1), 100));
        Bucket perAddress = bucket("per-address", 10, OutagePolicy.FAIL_OPEN);
        Bucket perAccount = bucket("per-account", 1, OutagePolicy.FAIL_OPEN);
        Bucket third = bucket("third", 10, OutagePolicy.FAIL_OPEN);
        decide(item(perAccount, "alice"));
        assertThat(outcomes(decide(item(perAccount, "alice")))).as("the store's refusal, kept")
                .containsExactly(Outcome.DENIED);
        store.calls.clear();

        Verdict[] verdicts = decide(item(perAddress, "addr"), item(perAccount, "alice"), item(third, "t"));

        assertThat(outcomes(verdicts)).containsExactly(Outcome.ALLOWED, Outcome.DENIED);
        assertThat(store.calls).extracting(RecordingStore::keys).containsExactly(List.of("addr"));
        assertThat(verdicts[0].remaining()).as("the earlier bucket keeps its count").isEqualTo(9);

        Verdict[] refusedFirst = decide(item(perAccount, "alice"), item(perAddress, "addr"));

        assertThat(outcomes(refusedFirst)).containsExactly(Outcome.DENIED);
        assertThat(store.calls).as("no further call").hasSize(1);
    }

    @Test
    @DisplayName("the store down: one failed call, then each item by its bucket's policy in order; a fail-closed "
            + "bucket stops the rest, a fallback counts in memory")
    void outagePoliciesPerItem() {
        chain();
        Bucket open = bucket("open", 5, OutagePolicy.FAIL_OPEN);
        Bucket fallen = bucket("fallen", 1, OutagePolicy.FALLBACK);
        Bucket closed = bucket("closed", 5, OutagePolicy.FAIL_CLOSED);
        Bucket never = bucket("never", 5, OutagePolicy.FAIL_OPEN);
        store.map.down(true);

        Verdict[] verdicts = decide(item(open, "o"), item(fallen, "f"), item(closed, "c"), item(never, "n"));

        assertThat(outcomes(verdicts)).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.UNAVAILABLE);
        assertThat(store.calls).hasSize(1);
        assertThat(outages.failOpens("open")).isEqualTo(1);
        assertThat(outages.fallbacks("fallen")).isEqualTo(1);
        assertThat(outages.failCloseds("closed")).isEqualTo(1);
        assertThat(outages.failOpens("never")).as("after the fail-closed bucket: not decided").isZero();
        assertThat(chain.breaker().isOpen()).as("one failed call is one failure of the breaker (threshold 3)")
                .isFalse();

        Verdict[] again = decide(item(fallen, "f"), item(open, "o"));

        assertThat(outcomes(again)).as("the fallback's refusal stops the rest").containsExactly(Outcome.DENIED);
        assertThat(outages.failOpens("open")).isEqualTo(1);
    }

    /** A {@link MapStore} that records each call's items, with parts that can fail on their own. */
    private static final class RecordingStore implements RateLimitStore {

        final MapStore map;
        final List<List<StoreItem>> calls = new CopyOnWriteArrayList<>();
        final Set<String> downParts = ConcurrentHashMap.newKeySet();
        volatile boolean withParts;

        RecordingStore(MapStore map) {
            this.map = map;
        }

        static List<String> keys(List<StoreItem> call) {
            return call.stream().map(StoreItem::key).toList();
        }

        static String part(String key) {
            return key.startsWith("a") ? "node-a" : "node-b";
        }

        @Override
        public long[] consume(List<StoreItem> items) throws StoreException {
            calls.add(List.copyOf(items));
            for (StoreItem item : items) {
                if (downParts.contains(part(item.key()))) {
                    throw new StoreException(FailureKind.TRANSIENT, new IOException(part(item.key()) + " is down"));
                }
            }
            return map.consume(items);
        }

        @Override
        public void reset(Bucket bucket, String key) throws StoreException {
            map.reset(bucket, key);
        }

        @Override
        public void probe() throws StoreException {
            map.probe();
        }

        @Override
        public boolean blocking() {
            return false;
        }

        @Override
        public Optional<StoreParts> parts() {
            if (!withParts) {
                return Optional.empty();
            }
            return Optional.of(new StoreParts() {
                @Override
                public String partOf(Bucket bucket, String key) {
                    return part(key);
                }

                @Override
                public void probe(String part) throws Exception {
                    if (downParts.contains(part)) {
                        throw new IOException(part + " is down");
                    }
                }
            });
        }
    }
}
