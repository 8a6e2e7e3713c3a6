package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.contract.Capability;
import dev.ratelimiter.contract.RateLimiterContract;
import dev.ratelimiter.contract.UnavailableStore;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.CompositeOutageListener;

import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The whole contract on the per-process fallback, as a shared store's chain uses it while the store is down
 * ({@code fallback} buckets, the default): the in-memory store behind {@link OutagePolicyLimiter}.
 */
class FallbackContractTest extends RateLimiterContract {

    @Override
    protected Limiter newLimiter(InstantSource clock) {
        return new OutagePolicyLimiter(new UnavailableStore(), Optional.of(new MemoryRateLimiter(clock, 100_000)),
                new CompositeOutageListener(List.of()));
    }

    @Override
    protected Set<Capability> capabilities() {
        return Capability.inMemory();
    }
}
