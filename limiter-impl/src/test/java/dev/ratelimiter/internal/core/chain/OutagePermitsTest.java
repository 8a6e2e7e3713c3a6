package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.contract.UnavailableStore;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.OutageStatistics;
import dev.ratelimiter.spi.StorePermit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A concurrency bucket's permits while the shared store is out (docs/guide.md#concurrency-limits): each outage
 * policy's answer, and permits taken by the fallback given back and renewed there.
 */
class OutagePermitsTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final OutageStatistics outages = new OutageStatistics();
    private final MemoryRateLimiter fallback = new MemoryRateLimiter(clock, 100);
    private final OutagePolicyLimiter limiter = new OutagePolicyLimiter(new UnavailableStore(), Optional.of(fallback),
            outages);
    private long ids;

    private StorePermit permit(Bucket bucket) {
        return new StorePermit(bucket, "k", ++ids);
    }

    @Test
    @DisplayName("FALLBACK: the per-process fallback keeps the limit in this process, its permits given back and "
            + "renewed there, each take counted as a fallback")
    void fallbackKeepsTheLimitPerProcess() {
        Bucket bucket = Bucket.concurrency("exports", 2, Duration.ofSeconds(30), OutagePolicy.FALLBACK);
        StorePermit first = permit(bucket);
        assertThat(limiter.take(first).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.counted(bucket, limiter.take(permit(bucket)))).as("a permit to give back").isTrue();
        assertThat(limiter.take(permit(bucket)).outcome()).isEqualTo(Outcome.DENIED);
        assertThat(outages.fallbacks("exports")).isEqualTo(3);

        assertThat(limiter.renew(List.of(first))).as("the store cannot be asked: unknown").isNull();
        clock.advance(Duration.ofSeconds(20));
        limiter.renew(List.of(first)); // renewed in the fallback all the same
        clock.advance(Duration.ofSeconds(20));
        assertThat(fallback.heldPermits(bucket.name(), "k")).as("the renewed one held past its first lease")
                .isEqualTo(2);
        assertThat(limiter.giveBack(List.of(first))).as("given back to the fallback that holds it").isTrue();
        assertThat(limiter.take(permit(bucket)).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("FAIL_OPEN: the call runs without a permit, none to give back; FAIL_CLOSED: refused UNAVAILABLE")
    void failOpenAndFailClosed() {
        Bucket open = Bucket.concurrency("open", 1, Duration.ofSeconds(30), OutagePolicy.FAIL_OPEN);
        for (int i = 0; i < 3; i++) {
            var verdict = limiter.take(permit(open));
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(limiter.counted(open, verdict)).as("nothing taken, nothing to give back").isFalse();
        }
        assertThat(outages.failOpens("open")).isEqualTo(3);

        Bucket closed = Bucket.concurrency("closed", 1, Duration.ofSeconds(30), OutagePolicy.FAIL_CLOSED);
        assertThat(limiter.take(permit(closed)).outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(outages.failCloseds("closed")).isEqualTo(1);
    }
}
