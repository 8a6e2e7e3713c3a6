package dev.ratelimiter.contract;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.chain.LimiterAssembly;
import dev.ratelimiter.internal.core.chain.PlainStoreContext;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.SettingsReader;
import dev.ratelimiter.internal.core.settings.StoreProviderRegistry;
import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import dev.ratelimiter.internal.core.time.ForwardOnlyClock;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.RateLimitStoreProvider;

import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A store built by its provider and wrapped in the chain the library builds around every store in a server (the
 * answer read as verdicts, the circuit breaker, the outage policy), with no refusals kept in memory so that every
 * decision reaches the store: what a store author's contract test decides through (docs/writing-a-store.md). Only the
 * SPI and this class are needed; the library's internal classes stay behind it.
 */
public final class StoreUnderTest implements AutoCloseable {

    private final RateLimitStore store;
    private final LimiterAssembly assembly;

    private StoreUnderTest(RateLimitStore store, LimiterAssembly assembly) {
        this.store = store;
        this.assembly = assembly;
    }

    /**
     * Builds the store as the library does in a server, on the test's clock.
     *
     * @param provider   the store's provider
     * @param properties the store's properties by full name ({@code ratelimiter.<name>.url}); the rest of the
     *                   library's settings are its defaults
     * @param testClock  the test's clock; the store gets it forward-only, as in a server
     * @return the store and its chain, to close after the test
     * @throws dev.ratelimiter.spi.ConfigurationException when the provider refuses the properties
     */
    public static StoreUnderTest start(RateLimitStoreProvider provider, Map<String, String> properties,
                                       InstantSource testClock) {
        Objects.requireNonNull(provider, "provider");
        InstantSource clock = ForwardOnlyClock.of(testClock);
        Map<String, String> all = new HashMap<>(MapStoreSettings.GLOBAL_BUCKETS);
        all.put("ratelimiter.deny-cache.max-age", "PT0S");
        all.putAll(properties);
        all.put("ratelimiter.backend", provider.name());
        LimiterSettings settings = SettingsReader.read(name -> Optional.ofNullable(all.get(name)), all.keySet(),
                StoreProviderRegistry.of(List.of(provider)));
        PlainStoreContext context = new PlainStoreContext(new SubtreeConfig(provider.name(),
                name -> Optional.ofNullable(all.get(name))), clock, Optional.empty());
        RateLimitStore store = provider.create(context);
        LimiterAssembly assembly = LimiterAssembly.assemble(settings, Optional.of(LimiterAssembly.of(store,
                context)), clock, RateLimiterMetrics.NONE, status -> { });
        return new StoreUnderTest(store, assembly);
    }

    /** The chain around the store: {@link RateLimiterContract#newLimiter} returns it. */
    public Limiter limiter() {
        return assembly.limiter();
    }

    /** The store itself, as its provider built it. */
    public RateLimitStore store() {
        return store;
    }

    /** Stops the sweeps and the breaker's probe, then closes the store. */
    @Override
    public void close() {
        assembly.shutdown().close();
    }
}
