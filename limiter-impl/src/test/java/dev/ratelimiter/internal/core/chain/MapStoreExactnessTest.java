package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.contract.ExactnessUnderLoadContract;
import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.ForwardingRateLimitStore;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreBatching;
import org.junit.jupiter.api.Nested;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exactness cases on the map store of the tests, with the calls that wait for it sharing round trips (through
 * the SPI's default {@link RateLimitStore#consumeEach}) and without.
 */
class MapStoreExactnessTest {

    private static StoreLimiter limiter(RateLimitStore store) {
        return new StoreLimiter(store, new BackendMonitor("test-map", InstantSource.system(), RateLimiterMetrics.NONE),
                RateLimiterMetrics.NONE);
    }

    @Nested
    class BatchingOn extends ExactnessUnderLoadContract {
        @Override
        protected Limiter newLimiter() {
            StoreLimiter limiter = limiter(new Batched(new MapStore(InstantSource.system())));
            assertThat(limiter.batching()).isTrue();
            return limiter;
        }
    }

    @Nested
    class BatchingOff extends ExactnessUnderLoadContract {
        @Override
        protected Limiter newLimiter() {
            return limiter(new MapStore(InstantSource.system()));
        }
    }

    /** The map store, offering batching: two round trips in flight, up to 64 calls each. */
    private static final class Batched extends ForwardingRateLimitStore {

        Batched(MapStore store) {
            super(store);
        }

        @Override
        public boolean blocking() {
            return true;
        }

        @Override
        public Optional<StoreBatching> batching() {
            return Optional.of(new StoreBatching(64, 2, Duration.ofSeconds(10)));
        }
    }
}
