package dev.ratelimiter.internal.core;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.contract.MapStoreSettings;
import dev.ratelimiter.contract.RateLimiterContract;
import dev.ratelimiter.spi.RateLimitStore;
import org.junit.jupiter.api.AfterEach;

import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;

/**
 * The SPI's proof, part one: a store defined only in test sources, selected by name, passes the contract suite
 * through the chain the library assembles around every store (StoreLimiter's answer-to-verdict rule, the circuit
 * breaker, the outage policy), with no main class knowing it.
 */
class MapStoreContractTest extends RateLimiterContract {

    private LimiterAssembly assembly;

    /**
     * The test's clock as the library hands it to a store in a server ({@code cdi.ClockProducer}): forward-only, so
     * the cases that step the clock back see what a store sees.
     */
    @Override
    protected RateLimiter newLimiter(InstantSource testClock) {
        InstantSource clock = ForwardOnlyClock.of(testClock);
        // Every decision reaches the store: no refusals kept in memory.
        LimiterSettings settings = MapStoreSettings.read(Map.of("ratelimiter.backend", MapStoreProvider.NAME,
                "ratelimiter.deny-cache.max-age", "PT0S"));
        PlainStoreContext context = new PlainStoreContext(new SubtreeConfig(settings.backend(),
                name -> Optional.empty()), clock, Optional.empty());
        RateLimitStore store = StoreProviderRegistry.of(java.util.List.of(new MapStoreProvider())).byName()
                .get(settings.backend()).create(context);
        assembly = LimiterAssembly.assemble(settings, Optional.of(LimiterAssembly.of(store, context)), clock,
                RateLimiterMetrics.NONE, status -> { });
        return assembly.limiter();
    }

    @AfterEach
    void close() {
        assembly.shutdown().close();
    }
}
