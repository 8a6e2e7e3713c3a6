package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.contract.Capability;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.contract.RateLimiterContract;
import dev.ratelimiter.contract.StoreUnderTest;
import org.junit.jupiter.api.AfterEach;

import java.time.InstantSource;
import java.util.Map;
import java.util.Set;

/**
 * The SPI's proof, part one: a store defined only in test sources, selected by name, passes the contract suite
 * through the chain the library assembles around every store (StoreLimiter's answer-to-verdict rule, the circuit
 * breaker, the outage policy), with no main class knowing it; written as a store author writes it
 * (docs/writing-a-store.md), on the contract jar's {@link StoreUnderTest} alone.
 */
class MapStoreContractTest extends RateLimiterContract {

    private StoreUnderTest store;

    @Override
    protected Limiter newLimiter(InstantSource testClock) {
        store = StoreUnderTest.start(new MapStoreProvider(), Map.of(), testClock);
        return store.limiter();
    }

    @Override
    protected Set<Capability> capabilities() {
        return Capability.declaredBy(new MapStoreProvider()); // fixed windows and refunds
    }

    @AfterEach
    void close() {
        store.close();
    }
}
