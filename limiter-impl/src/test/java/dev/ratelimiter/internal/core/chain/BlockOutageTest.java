package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.contract.MapStoreSettings;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Blocks after a refusal in the whole chain around a shared store (docs/guide.md#blocks-after-a-refusal): a block is
 * answered from the refusal cache while it lasts, the fallback per process keeps a block the store reported and sets
 * its own during an outage, and a call is counted once among the outage decisions, its block's check not apart.
 */
class BlockOutageTest {

    private static final Bucket LOGIN = Bucket.of("login", 2, Duration.ofMinutes(15), OutagePolicy.FALLBACK);
    private static final Duration BLOCK = Duration.ofHours(1);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private LimiterAssembly assembly;
    private MapStore store;

    private void assemble(boolean denyCache) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.backend", MapStoreProvider.NAME,
                "ratelimiter.breaker.failure-threshold", "1000",
                "ratelimiter.buckets.login.limit", "2",
                "ratelimiter.buckets.login.window", "PT15M",
                "ratelimiter.buckets.login.block", BLOCK.toString()));
        if (!denyCache) {
            properties.put("ratelimiter.deny-cache.max-age", "PT0S");
        }
        LimiterSettings settings = MapStoreSettings.read(properties);
        PlainStoreContext context = new PlainStoreContext(new SubtreeConfig(MapStoreProvider.NAME,
                name -> Optional.empty()), clock, Optional.empty());
        store = (MapStore) new MapStoreProvider().create(context);
        assembly = LimiterAssembly.assemble(settings, Optional.of(LimiterAssembly.of(store, context)), clock,
                RateLimiterMetrics.NONE, status -> { });
    }

    @AfterEach
    void close() {
        assembly.shutdown().close();
    }

    /** Two allowed calls, then the refusal that sets the key's block. */
    private Verdict block(String key) {
        assertThat(assembly.limiter().consume(LOGIN, key).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(assembly.limiter().consume(LOGIN, key).outcome()).isEqualTo(Outcome.ALLOWED);
        return assembly.limiter().consume(LOGIN, key);
    }

    @Test
    @DisplayName("a blocked key is refused from the refusal cache, with no store call, to the block's end")
    void blockFromTheRefusalCache() {
        assemble(true);
        assertThat(block("k").resetAfter()).isEqualTo(BLOCK);
        assertThat(assembly.limiter().consume(LOGIN, "k").outcome()).isEqualTo(Outcome.DENIED);
        long calls = store.calls();
        for (int i = 0; i < 5; i++) {
            Verdict blocked = assembly.limiter().consume(LOGIN, "k");
            assertThat(blocked.outcome()).isEqualTo(Outcome.DENIED);
            assertThat(blocked.resetAfter()).as("the block's end, on the cache's monotonic clock")
                    .isGreaterThan(BLOCK.minusMinutes(1)).isLessThanOrEqualTo(BLOCK);
        }
        assertThat(store.calls()).as("no store call while the block lasts").isEqualTo(calls);
    }

    @Test
    @DisplayName("store down: the fallback keeps the block the store reported, and counts one outage decision per "
            + "call")
    void fallbackKeepsTheBlock() {
        assemble(false);
        block("k");
        assertThat(assembly.limiter().consume(LOGIN, "k").outcome()).as("reported by the store").isEqualTo(
                Outcome.DENIED);
        clock.advance(Duration.ofMinutes(20));
        store.down(true);

        Verdict blocked = assembly.limiter().consume(LOGIN, "k");
        assertThat(blocked.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(blocked.resetAfter()).isEqualTo(BLOCK.minusMinutes(20));
        assertThat(assembly.outages().fallbacks("login")).as("the call, answered by its block's check").isEqualTo(1);
        assertThat(assembly.limiter().consume(LOGIN, "other").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(assembly.outages().fallbacks("login")).as("a check and the call's own item: one call")
                .isEqualTo(2);
    }

    @Test
    @DisplayName("store down: the fallback blocks a key it refuses itself, for the block's length")
    void fallbackSetsItsOwnBlock() {
        assemble(false);
        store.down(true);
        assertThat(block("fresh").resetAfter()).isEqualTo(BLOCK);
        assertThat(assembly.outages().fallbacks("login")).as("three calls; the block set is none").isEqualTo(3);
        clock.advance(Duration.ofMinutes(20));
        assertThat(assembly.limiter().consume(LOGIN, "fresh").outcome()).isEqualTo(Outcome.DENIED);
    }
}
