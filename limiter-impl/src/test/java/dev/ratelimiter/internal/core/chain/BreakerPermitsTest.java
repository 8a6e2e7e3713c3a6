package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.spi.StoreParts;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A concurrency bucket's permits through a circuit breaker of a store in parts (docs/guide.md#concurrency-limits): a
 * part that is out stops only its own keys' permits, never the renewal of the others'.
 */
class BreakerPermitsTest {

    private final Bucket bucket = Bucket.concurrency("exports", 5, Duration.ofSeconds(30), OutagePolicy.FALLBACK);
    private final List<List<StorePermit>> renewed = new ArrayList<>();
    /** Keys starting with "a" live on part a, which is down; the others on part b. */
    private final Limiter store = new Limiter() {
        @Override
        public Verdict consume(Bucket bucket, String key, long cost) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void reset(Bucket bucket, String key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean refund(List<StoreRefund> refunds) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Verdict take(StorePermit permit) {
            return permit.key().startsWith("a") ? Verdict.unavailable(permit.bucket().limit(), Duration.ZERO)
                    : new Verdict(Verdict.Outcome.ALLOWED, 5, 4, Duration.ofSeconds(1), List.of());
        }

        @Override
        public boolean[] renew(List<StorePermit> permits) {
            renewed.add(permits);
            boolean[] held = new boolean[permits.size()];
            for (int i = 0; i < held.length; i++) {
                held[i] = !permits.get(i).key().endsWith("lost");
            }
            return held;
        }
    };
    private final StoreParts parts = new StoreParts() {
        @Override
        public String partOf(Bucket bucket, String key) {
            return key.startsWith("a") ? "a" : "b";
        }

        @Override
        public void probe(String part) throws Exception {
            throw new dev.ratelimiter.spi.StoreException(dev.ratelimiter.spi.FailureKind.TRANSIENT,
                    new java.io.IOException("part " + part + " is down"));
        }
    };

    @Test
    @DisplayName("one part open: the other part's permits are renewed in one call, and those of the open part are "
            + "reported held, to be asked again at their next renewal; all parts open: unknown")
    void renewalGoesOnOnTheOtherParts() {
        try (CircuitBreakerLimiter breaker = new CircuitBreakerLimiter(store, parts,
                new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE), InstantSource.system(),
                BreakerSettings.DEFAULTS)) {
            for (int i = 0; i < BreakerSettings.DEFAULTS.failureThreshold(); i++) {
                assertThat(breaker.take(new StorePermit(bucket, "a-key", i + 1)).outcome())
                        .isEqualTo(Verdict.Outcome.UNAVAILABLE);
            }
            assertThat(breaker.isOpen()).isTrue();

            List<StorePermit> held = List.of(new StorePermit(bucket, "a-key", 1), new StorePermit(bucket, "b-key", 2),
                    new StorePermit(bucket, "b-lost", 3));
            assertThat(breaker.renew(held)).containsExactly(true, true, false);
            assertThat(renewed).singleElement().satisfies(call -> assertThat(call).extracting(StorePermit::key)
                    .containsExactly("b-key", "b-lost"));
            assertThat(breaker.renew(List.of(new StorePermit(bucket, "a-other", 4)))).isNull();
        }
    }
}
