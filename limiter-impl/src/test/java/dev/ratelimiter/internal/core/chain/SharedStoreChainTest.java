package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.OutageListener;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import dev.ratelimiter.internal.core.settings.SettingsReader;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SharedStoreChainTest {

    private final Bucket bucket = Bucket.of("login", 5, Duration.ofMinutes(1));
    private final Limiter downStore = new Limiter() {
        @Override
        public Verdict consume(Bucket bucket, String key, long cost) {
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        }

        @Override
        public void reset(Bucket bucket, String key) {
        }

        @Override
        public boolean refund(List<StoreRefund> refunds) {
            return false; // down: what it was given back is dropped
        }
    };

    @Test
    @DisplayName("ratelimiter.breaker.failure-threshold=5 and initial-backoff=PT7S: the 5th failure opens it, "
            + "and its answer waits 7 s")
    void configuredThresholdAndBackoffAreUsed() {
        Map<String, String> properties = Map.of(
                "ratelimiter.buckets.api-authenticated.limit", "600",
                "ratelimiter.buckets.api-authenticated.window", "PT1M",
                "ratelimiter.buckets.api-anonymous.limit", "120",
                "ratelimiter.buckets.api-anonymous.window", "PT1M",
                "ratelimiter.breaker.failure-threshold", "5",
                "ratelimiter.breaker.initial-backoff", "PT7S",
                "ratelimiter.breaker.max-backoff", "PT20S");
        BreakerSettings settings = SettingsReader.read(name -> Optional.ofNullable(properties.get(name)),
                properties.keySet()).breaker();
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        BackendMonitor monitor = new BackendMonitor("valkey", clock, RateLimiterMetrics.NONE);
        SharedStoreChain chain = SharedStoreChain.of(downStore, () -> {
            throw new java.io.IOException("connection refused");
        }, monitor, clock, new MemoryRateLimiter(clock, 100), OutageListener.NONE, settings,
                DenyCacheSettings.OFF, RateLimiterMetrics.NONE);
        try (CircuitBreakerLimiter breaker = chain.breaker()) {
            for (int i = 0; i < 4; i++) {
                breaker.consume(bucket, "k");
            }
            assertThat(breaker.isOpen()).as("after 4 failures").isFalse();

            breaker.consume(bucket, "k");

            assertThat(breaker.isOpen()).as("after 5 failures").isTrue();
            assertThat(breaker.consume(bucket, "k").resetAfter()).isEqualTo(Duration.ofSeconds(7));
        }
    }

    @Test
    @DisplayName("ratelimiter.deny-cache.max-age: unset, refusals are kept 1 s; PT0S, the chain keeps none")
    void denyCacheMaxAgeIsUsed() {
        Map<String, String> properties = Map.of(
                "ratelimiter.buckets.api-authenticated.limit", "600",
                "ratelimiter.buckets.api-authenticated.window", "PT1M",
                "ratelimiter.buckets.api-anonymous.limit", "120",
                "ratelimiter.buckets.api-anonymous.window", "PT1M",
                "ratelimiter.memory.max-keys", "7");
        assertThat(SettingsReader.read(name -> Optional.ofNullable(properties.get(name)), properties.keySet())
                .denyCache()).isEqualTo(new DenyCacheSettings(Duration.ofSeconds(1), 7));

        Map<String, String> off = new java.util.HashMap<>(properties);
        off.put("ratelimiter.deny-cache.max-age", "PT0S");
        DenyCacheSettings refusals = SettingsReader.read(name -> Optional.ofNullable(off.get(name)), off.keySet())
                .denyCache();
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        SharedStoreChain chain = SharedStoreChain.of(downStore, () -> { }, new BackendMonitor("valkey", clock,
                RateLimiterMetrics.NONE), clock, new MemoryRateLimiter(clock, 100), OutageListener.NONE,
                BreakerSettings.DEFAULTS, refusals, RateLimiterMetrics.NONE);
        try (CircuitBreakerLimiter breaker = chain.breaker()) {
            assertThat(chain.denyCache()).isEmpty();
        }
    }
}
