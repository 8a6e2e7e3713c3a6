package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.StorePermit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The renewal of the permits this process holds (docs/guide.md#concurrency-limits): each lease renewed once a third
 * of it has passed, a lost one forgotten and counted, and the in-flight count the gauge reads.
 */
class PermitRenewalTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final Map<String, Long> inFlight = new HashMap<>();
    private final Map<String, Long> expired = new HashMap<>();
    private final RateLimiterMetrics metrics = new RateLimiterMetrics() {
        @Override
        public void permitsInFlight(Bucket bucket, int delta) {
            inFlight.merge(bucket.name(), (long) delta, Long::sum);
        }

        @Override
        public void expiredLeases(Bucket bucket, long count) {
            expired.merge(bucket.name(), count, Long::sum);
        }
    };
    private final MemoryRateLimiter store = new MemoryRateLimiter(clock, 100);
    private final List<Integer> renewalCalls = new ArrayList<>();
    private final Limiter chain = new Limiter() {
        @Override
        public Verdict consume(Bucket bucket, String key, long cost) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void reset(Bucket bucket, String key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean refund(List<dev.ratelimiter.spi.StoreRefund> refunds) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean[] renew(List<StorePermit> permits) {
            renewalCalls.add(permits.size());
            return store.renew(permits);
        }
    };
    private final PermitRenewal renewal = new PermitRenewal(clock, metrics, false); // swept by the cases, on the manual clock
    private final Bucket bucket = Bucket.concurrency("exports", 5, Duration.ofSeconds(3), OutagePolicy.FALLBACK);

    private StorePermit taken(long id) {
        StorePermit permit = new StorePermit(bucket, "k", id);
        assertThat(store.take(permit).isAllowed()).isTrue();
        renewal.held(permit);
        return permit;
    }

    @Test
    @DisplayName("a lease is renewed once a third of it has passed, not before, so a call keeps its permit for as "
            + "long as it runs; the gauge counts it until it is given back")
    void renewsDueLeases() {
        renewal.renewThrough(chain);
        StorePermit permit = taken(1);
        assertThat(inFlight).containsEntry("exports", 1L);
        clock.advance(Duration.ofMillis(900));
        renewal.sweep();
        assertThat(renewalCalls).as("not due yet").isEmpty();
        for (int i = 0; i < 10; i++) {
            clock.advance(Duration.ofSeconds(1));
            renewal.sweep();
        }
        assertThat(renewalCalls).as("one renewal a second, of the one permit").hasSize(10).containsOnly(1);
        assertThat(store.heldPermits("exports", "k")).as("held 10.9 s on a lease of 3 s").isEqualTo(1);
        renewal.released(List.of(permit));
        assertThat(inFlight).containsEntry("exports", 0L);
        clock.advance(Duration.ofSeconds(2));
        renewal.sweep();
        assertThat(renewalCalls).as("a permit given back is not renewed").hasSize(10);
        renewal.close();
    }

    @Test
    @DisplayName("a lease that ended before its renewal (a pause longer than the lease) is forgotten, counted with "
            + "the expired leases and out of the gauge; the others are renewed")
    void lostLease() {
        renewal.renewThrough(chain);
        StorePermit lost = taken(1);
        clock.advance(Duration.ofSeconds(4));
        StorePermit fresh = taken(2);
        clock.advance(Duration.ofSeconds(1));
        assertThat(renewal.sweep()).isEqualTo(1);
        assertThat(expired).containsEntry("exports", 1L);
        assertThat(inFlight).containsEntry("exports", 1L);
        renewal.released(List.of(lost, fresh));
        assertThat(inFlight).containsEntry("exports", 0L);
        renewal.close();
    }
}
