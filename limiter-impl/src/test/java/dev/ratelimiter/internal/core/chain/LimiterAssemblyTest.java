package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.contract.MapStoreSettings;
import dev.ratelimiter.internal.core.key.CounterKeyHasher;
import dev.ratelimiter.internal.core.key.KeyHasher;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.StoreProviderRegistry;
import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import dev.ratelimiter.internal.core.settings.UnknownProperties;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.RateLimitStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The chain assembled in plain Java, without a container: in memory, around a store, disabled, failing. */
class LimiterAssemblyTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final Bucket login = Bucket.of("login", 2, Duration.ofMinutes(1));

    @Test
    @DisplayName("memory: the in-process chain, in-process key hashing, never blocking, the monitor named memory")
    void memory() {
        LimiterSettings settings = MapStoreSettings.read(Map.of());
        LimiterAssembly assembly = LimiterAssembly.assemble(settings, Optional.empty(), clock,
                RateLimiterMetrics.NONE, status -> { });
        try {
            assertThat(assembly.limiter()).isInstanceOfSatisfying(BlockLimiter.class, blocks ->
                    assertThat(blocks.chain()).isInstanceOf(OutagePolicyLimiter.class));
            assertThat(assembly.blocking()).isFalse();
            assertThat(assembly.monitor().status().backend()).isEqualTo("memory");
            assertThat(assembly.keys().counterKey(KeyNamespace.APPLICATION, "alice"))
                    .isNotEqualTo(CounterKeyHasher.shared(new KeyHasher(Optional.empty()))
                            .counterKey(KeyNamespace.APPLICATION, "alice"));
            assertThat(assembly.limiter().consume(login, "k").outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(assembly.limiter().consume(login, "k").outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(assembly.limiter().consume(login, "k").outcome()).isEqualTo(Outcome.DENIED);
            assertThat(assembly.shutdown().order()).as("the permits' renewal, then the memory's sweeper")
                    .hasSize(2).satisfies(order -> {
                        assertThat(order.get(0)).isSameAs(assembly.permits());
                        assertThat(order.get(1)).isInstanceOf(PeriodicSweeper.class);
                    });
        } finally {
            assembly.shutdown().close();
        }
    }

    @Test
    @DisplayName("a store: shared key hashing, its blocking(), the breaker closed first, the store's context "
            + "next, the store after the sweepers")
    void store() {
        LimiterSettings settings = MapStoreSettings.read(Map.of("ratelimiter.backend", MapStoreProvider.NAME));
        PlainStoreContext context = new PlainStoreContext(new SubtreeConfig(MapStoreProvider.NAME,
                name -> Optional.empty()), clock, Optional.empty());
        MapStore store = (MapStore) new MapStoreProvider().create(context);
        LimiterAssembly assembly = LimiterAssembly.assemble(settings, Optional.of(LimiterAssembly.of(store,
                context)), clock, RateLimiterMetrics.NONE, status -> { });
        try {
            assertThat(assembly.keys().counterKey(KeyNamespace.APPLICATION, "alice"))
                    .isEqualTo(CounterKeyHasher.shared(new KeyHasher(Optional.empty()))
                            .counterKey(KeyNamespace.APPLICATION, "alice"));
            assertThat(assembly.monitor().status().backend()).isEqualTo(MapStoreProvider.NAME);
            assertThat(assembly.limiter().consume(login, "hashed").outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(store.keys(login)).containsExactly("hashed");
            List<AutoCloseable> order = assembly.shutdown().order();
            assertThat(order.get(0)).as("no renewal left to call the store").isSameAs(assembly.permits());
            assertThat(order.get(1)).isInstanceOf(CircuitBreakerLimiter.class);
            assertThat(order.get(2)).isSameAs(context);
            assertThat(order.indexOf(store)).isGreaterThan(order.indexOf(context));
            assertThat(order.subList(3, order.indexOf(store))).allMatch(PeriodicSweeper.class::isInstance);
        } finally {
            assembly.shutdown().close();
        }
    }

    @Test
    @DisplayName("ratelimiter.enabled=false: everything allowed, no store started, nothing to close")
    void disabled() {
        LimiterSettings settings = MapStoreSettings.read(Map.of("ratelimiter.enabled", "false",
                "ratelimiter.backend", MapStoreProvider.NAME));
        LimiterAssembly assembly = LimiterAssembly.assemble(settings, Optional.empty(), clock,
                RateLimiterMetrics.NONE, status -> { });
        for (int i = 0; i < 5; i++) {
            assertThat(assembly.limiter().consume(login, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(assembly.shutdown().order()).isEmpty();
    }

    @Test
    @DisplayName("a store whose start fails: the configuration error passes, and what was opened is closed")
    void failedStart() {
        LimiterSettings settings = MapStoreSettings.read(Map.of("ratelimiter.backend", MapStoreProvider.NAME));
        List<String> closed = new ArrayList<>();
        LimiterAssembly.SharedStore failing = new LimiterAssembly.SharedStore() {
            @Override
            public SharedStoreChain start(LimiterAssembly.ChainInputs inputs, Shutdown shutdown) {
                shutdown.then(() -> closed.add("client"));
                throw new ConfigurationException(List.of("ratelimiter.test-map.down: no"));
            }

            @Override
            public boolean blocking() {
                return true;
            }
        };

        assertThatThrownBy(() -> LimiterAssembly.assemble(settings, Optional.of(failing), clock,
                RateLimiterMetrics.NONE, status -> { })).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.test-map.down");
        assertThat(closed).containsExactly("client");
    }

    @Test
    @DisplayName("ratelimiter.backend: an unknown name fails naming the property and every store found")
    void unknownStore() {
        assertThatThrownBy(() -> MapStoreSettings.read(Map.of("ratelimiter.backend", "hazelcast")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.backend: 'hazelcast'")
                .hasMessageContaining("memory, " + MapStoreProvider.NAME);
    }

    @Test
    @DisplayName("a provider's property misspelt under ratelimiter.<name>.*: warned with the nearest name")
    void providerPropertiesAreKnown() {
        StoreProviderRegistry stores = StoreProviderRegistry.of(List.of(new MapStoreProvider()));
        assertThat(UnknownProperties.warnings(List.of("ratelimiter.test-map.down"), stores)).isEmpty();
        assertThat(UnknownProperties.warnings(List.of("ratelimiter.test-map.dwn"), stores)).containsExactly(
                "Unknown property ratelimiter.test-map.dwn is ignored; did you mean ratelimiter.test-map.down?");
    }

    @Test
    @DisplayName("the store's close is called once, after the breaker stopped")
    void storeClosedOnce() {
        LimiterSettings settings = MapStoreSettings.read(Map.of("ratelimiter.backend", MapStoreProvider.NAME));
        List<String> closed = new ArrayList<>();
        MapStore map = new MapStore(clock);
        RateLimitStore store = new RateLimitStore() {
            @Override
            public long[] consume(List<dev.ratelimiter.spi.StoreItem> items) throws dev.ratelimiter.spi.StoreException {
                return map.consume(items);
            }

            @Override
            public void reset(Bucket bucket, String key) throws dev.ratelimiter.spi.StoreException {
                map.reset(bucket, key);
            }

            @Override
            public void probe() {
            }

            @Override
            public boolean blocking() {
                return true;
            }

            @Override
            public void close() {
                closed.add("store");
            }
        };
        LimiterAssembly assembly = LimiterAssembly.assemble(settings, Optional.of(LimiterAssembly.of(store,
                () -> closed.add("context"))), clock, RateLimiterMetrics.NONE, status -> { });
        assertThat(assembly.blocking()).isTrue();

        assembly.shutdown().close();
        assembly.shutdown().close();

        assertThat(closed).containsExactly("context", "store");
    }

    @Test
    @DisplayName("quota leases: with a store, a leasing bucket's calls are decided from a lease inside the outage "
            + "policy, and what is left goes back when the application stops; in memory they change nothing")
    void quotaLeases() {
        Map<String, String> properties = Map.of("ratelimiter.backend", MapStoreProvider.NAME,
                "ratelimiter.buckets.search.limit", "1000", "ratelimiter.buckets.search.window", "PT1M",
                "ratelimiter.buckets.search.quota-lease-percent", "10");
        LimiterSettings settings = MapStoreSettings.read(properties);
        Bucket search = settings.buckets().get("search");
        PlainStoreContext context = new PlainStoreContext(new SubtreeConfig(MapStoreProvider.NAME,
                name -> Optional.empty()), clock, Optional.empty());
        MapStore store = (MapStore) new MapStoreProvider().create(context);
        LimiterAssembly assembly = LimiterAssembly.assemble(settings, Optional.of(LimiterAssembly.of(store,
                context)), clock, RateLimiterMetrics.NONE, status -> { });
        try {
            for (int i = 0; i < 50; i++) {
                assertThat(assembly.limiter().consume(search, "hashed").outcome()).isEqualTo(Outcome.ALLOWED);
            }
            assertThat(store.calls()).as("the first call alone, then leases of up to 100").isLessThan(5);
            assertThat(assembly.shutdown().order()).anySatisfy(resource ->
                    assertThat(resource).isInstanceOf(QuotaLeaseLimiter.class));
        } catch (RuntimeException | Error e) {
            assembly.shutdown().close();
            throw e;
        }
        long before = store.calls();
        assembly.shutdown().close();
        assertThat(store.calls()).as("the lease's unused part given back at shutdown, in one call")
                .isEqualTo(before + 1);

        LimiterAssembly memory = LimiterAssembly.assemble(MapStoreSettings.read(Map.of(
                "ratelimiter.buckets.search.limit", "1000", "ratelimiter.buckets.search.window", "PT1M",
                "ratelimiter.buckets.search.quota-lease-percent", "10")), Optional.empty(), clock,
                RateLimiterMetrics.NONE, status -> { });
        try {
            assertThat(memory.shutdown().order()).noneSatisfy(resource ->
                    assertThat(resource).isInstanceOf(QuotaLeaseLimiter.class));
        } finally {
            memory.shutdown().close();
        }
    }
}
