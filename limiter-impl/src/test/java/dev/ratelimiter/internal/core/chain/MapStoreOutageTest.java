package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.contract.MapStoreSettings;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.monitor.BackendStatus;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The SPI's proof, part two: the outage chain around a store defined only in test sources. A store that throws
 * {@code StoreException} opens the breaker, each bucket's outage policy answers, readiness turns degraded, and the
 * breaker's background probe finds the store when it is back.
 */
class MapStoreOutageTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<BackendStatus> changes = new CopyOnWriteArrayList<>();
    private LimiterAssembly assembly;
    private MapStore store;

    @BeforeEach
    void assemble() {
        LimiterSettings settings = MapStoreSettings.read(Map.ofEntries(
                Map.entry("ratelimiter.backend", MapStoreProvider.NAME),
                Map.entry("ratelimiter.breaker.failure-threshold", "3"),
                Map.entry("ratelimiter.breaker.initial-backoff", "PT0.01S"),
                Map.entry("ratelimiter.breaker.max-backoff", "PT0.05S"),
                Map.entry("ratelimiter.buckets.login.limit", "2"),
                Map.entry("ratelimiter.buckets.login.window", "PT1M"),
                Map.entry("ratelimiter.buckets.login.on-outage", "fallback"),
                Map.entry("ratelimiter.buckets.exports.limit", "2"),
                Map.entry("ratelimiter.buckets.exports.window", "PT1M"),
                Map.entry("ratelimiter.buckets.exports.on-outage", "fail-closed"),
                Map.entry("ratelimiter.buckets.search.limit", "2"),
                Map.entry("ratelimiter.buckets.search.window", "PT1M"),
                Map.entry("ratelimiter.buckets.search.on-outage", "fail-open")));
        PlainStoreContext context = new PlainStoreContext(new SubtreeConfig(MapStoreProvider.NAME,
                name -> Optional.empty()), clock, Optional.empty());
        store = (MapStore) new MapStoreProvider().create(context);
        assembly = LimiterAssembly.assemble(settings, Optional.of(LimiterAssembly.of(store, context)), clock,
                RateLimiterMetrics.NONE, changes::add);
        assertThat(assembly.blocking()).as("the store says it does not block").isFalse();
    }

    @AfterEach
    void close() {
        assembly.shutdown().close();
    }

    private Bucket bucket(String name) {
        return Bucket.of(name, 2, Duration.ofMinutes(1), switch (name) {
            case "login" -> dev.ratelimiter.OutagePolicy.FALLBACK;
            case "exports" -> dev.ratelimiter.OutagePolicy.FAIL_CLOSED;
            default -> dev.ratelimiter.OutagePolicy.FAIL_OPEN;
        });
    }

    @Test
    @DisplayName("store down: the breaker opens after 3 failures, each policy answers, readiness degraded with the "
            + "store's error; back up: the probe closes the breaker and the store decides again")
    void outageAndRecovery() {
        assertThat(assembly.limiter().consume(bucket("login"), "k").outcome()).isEqualTo(Outcome.ALLOWED);
        store.down(true);

        for (int i = 0; i < 3; i++) {
            assembly.limiter().consume(bucket("search"), "k" + i);
        }

        BackendStatus status = assembly.monitor().status();
        assertThat(status.state()).isEqualTo(BackendState.DEGRADED);
        assertThat(status.backend()).isEqualTo(MapStoreProvider.NAME);
        assertThat(status.lastError()).hasValueSatisfying(error -> assertThat(error).contains("test-map is down"));
        assertThat(changes).extracting(BackendStatus::state).containsExactly(BackendState.DEGRADED);
        // FALLBACK counts in this process's memory: two allowed, the third refused
        assertThat(assembly.limiter().consume(bucket("login"), "f").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(assembly.limiter().consume(bucket("login"), "f").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(assembly.limiter().consume(bucket("login"), "f").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(assembly.limiter().consume(bucket("exports"), "f").outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(assembly.limiter().consume(bucket("search"), "f").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(assembly.outages().fallbacks("login")).isEqualTo(3);
        assertThat(assembly.outages().failCloseds("exports")).isEqualTo(1);
        assertThat(store.keys(bucket("login"))).as("nothing reached the store while down").containsExactly("k");

        store.down(false);

        await().atMost(Duration.ofSeconds(10)).until(() -> assembly.monitor().status().state() == BackendState.OK);
        assertThat(changes).extracting(BackendStatus::state)
                .containsExactly(BackendState.DEGRADED, BackendState.OK);
        assertThat(assembly.limiter().consume(bucket("exports"), "f").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(store.keys(bucket("exports"))).containsExactly("f");
    }
}
