package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.contract.ExactnessUnderLoadContract;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import org.junit.jupiter.api.Nested;

import java.time.Duration;
import java.time.InstantSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exactness cases on Valkey, with waiting decisions sharing pipelines ({@code ratelimiter.valkey.batching}, the
 * default) and without.
 */
class ValkeyExactnessTest {

    /**
     * {@code settings} with a 30 s deadline: the cases check counts, not speed, and 64 threads on a loaded 2-core
     * machine can wait longer than the usual test deadline for one of the pool's connections.
     */
    static ValkeySettings generous(ValkeySettings settings) {
        return new ValkeySettings(settings.mode(), settings.url(), settings.nodes(), settings.masterName(),
                settings.user(), settings.password(), Duration.ofSeconds(30), settings.keyPrefix(),
                settings.poolSize(), settings.trustStore(), settings.trustStorePassword(), settings.sentinelUser(),
                settings.sentinelPassword(), settings.batching());
    }

    abstract static class OnValkey extends ExactnessUnderLoadContract {

        private ValkeyClient client;

        abstract boolean batching();

        @Override
        protected Limiter newLimiter() {
            ValkeySettings settings = generous(ValkeyStoreTest.settings(ValkeyTarget.url())).withBatching(batching());
            client = ValkeyClientFactory.create(settings);
            StoreLimiter limiter = new StoreLimiter(
                    new ValkeyStore(() -> client, settings.keyPrefix(), ValkeyStore.batching(settings)),
                    new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE),
                    RateLimiterMetrics.NONE);
            assertThat(limiter.batching()).isEqualTo(batching());
            return limiter;
        }

        @Override
        protected void closeLimiter() {
            client.close();
        }
    }

    @Nested
    class BatchingOn extends OnValkey {
        @Override
        boolean batching() {
            return true;
        }
    }

    @Nested
    class BatchingOff extends OnValkey {
        @Override
        boolean batching() {
            return false;
        }
    }
}
