package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.spi.StoreParts;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The circuit breaker over a store of parts ({@link StoreParts}): keys {@code a…} live on part {@code node-a},
 * keys {@code b…} on {@code node-b}; each part fails, is probed and recovers on its own.
 */
class PartitionedCircuitBreakerTest {

    private final Bucket bucket = Bucket.of("b", 10, Duration.ofSeconds(60));
    private final Set<String> down = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> storeCalls = Map.of("node-a", new AtomicInteger(),
            "node-b", new AtomicInteger());
    private final Map<String, AtomicInteger> probes = Map.of("node-a", new AtomicInteger(),
            "node-b", new AtomicInteger());
    private final Limiter store = new Limiter() {
        @Override
        public Verdict consume(Bucket bucket, String key, long cost) {
            String part = partOf(key);
            storeCalls.get(part).incrementAndGet();
            return down.contains(part) ? Verdict.unavailable(bucket.limit(), Duration.ZERO)
                    : Verdict.allowed(bucket.limit(), 9, Duration.ofSeconds(60));
        }

        @Override
        public void reset(Bucket bucket, String key) {
        }

        @Override
        public boolean refund(List<StoreRefund> refunds) {
            return false; // these tests give nothing back
        }
    };
    private final StoreParts parts = new StoreParts() {
        @Override
        public String partOf(Bucket bucket, String key) {
            return PartitionedCircuitBreakerTest.partOf(key);
        }

        @Override
        public void probe(String part) throws Exception {
            probes.get(part).incrementAndGet();
            if (down.contains(part)) {
                throw new java.io.IOException("connection refused");
            }
        }
    };
    private final BackendMonitor monitor =
            new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE);
    private final CircuitBreakerLimiter breaker = new CircuitBreakerLimiter(store, parts, monitor,
            InstantSource.system(), new BreakerSettings(3, Duration.ofMillis(50), Duration.ofMillis(400), 3));

    private static String partOf(String key) {
        return key.startsWith("a") ? "node-a" : "node-b";
    }

    @AfterEach
    void close() {
        breaker.close();
    }

    @Test
    @DisplayName("node-a fails 3 times: its keys are kept from the store, node-b's still reach it; degraded naming node-a alone; only node-a is probed")
    void onePartOpens() {
        down.add("node-a");
        for (int i = 0; i < 3; i++) {
            breaker.consume(bucket, "a1");
        }

        int callsToA = storeCalls.get("node-a").get();
        for (int i = 0; i < 50; i++) {
            assertThat(breaker.consume(bucket, "a" + i).outcome()).isEqualTo(Outcome.UNAVAILABLE);
            assertThat(breaker.consume(bucket, "b" + i).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(storeCalls.get("node-a").get()).as("calls to node-a while open").isEqualTo(callsToA);
        assertThat(storeCalls.get("node-b").get()).isEqualTo(50);
        assertThat(monitor.status().state()).isEqualTo(BackendState.DEGRADED);
        assertThat(monitor.status().failingParts()).containsExactly("node-a");
        assertThat(breaker.isOpen()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> probes.get("node-a").get() >= 2);
        assertThat(probes.get("node-b").get()).as("probes of node-b, which never failed").isZero();
    }

    @Test
    @DisplayName("both parts fail, then node-a recovers: still degraded naming node-b; node-b recovers: ok, no part named")
    void partsRecoverOnTheirOwn() {
        down.addAll(List.of("node-a", "node-b"));
        for (int i = 0; i < 3; i++) {
            breaker.consume(bucket, "a1");
            breaker.consume(bucket, "b1");
        }
        assertThat(monitor.status().failingParts()).containsExactly("node-a", "node-b");

        down.remove("node-a");
        await().atMost(Duration.ofSeconds(5)).until(() -> monitor.status().failingParts().equals(List.of("node-b")));
        assertThat(monitor.status().state()).isEqualTo(BackendState.DEGRADED);
        assertThat(breaker.consume(bucket, "a1").outcome()).isEqualTo(Outcome.ALLOWED);

        down.remove("node-b");
        await().atMost(Duration.ofSeconds(5)).until(() -> monitor.status().state() == BackendState.OK);
        assertThat(monitor.status().failingParts()).isEmpty();
        assertThat(monitor.status().lastError()).isEmpty();
        assertThat(breaker.isOpen()).isFalse();
    }
}
