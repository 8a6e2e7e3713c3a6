package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.contract.UnavailableStore;
import dev.ratelimiter.internal.cdi.call.AppliedLimits.Applied;
import dev.ratelimiter.internal.core.chain.OutagePolicyLimiter;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.CompositeOutageListener;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ends of the accepted ranges (limit 1 to 10^12, window 1 s to 366 days) decided by the stores that run in
 * this process (the in-memory store, and the same store as a shared store's fallback) and written as headers:
 * no arithmetic overflows, and every number is the exact one.
 */
class AcceptedExtremesTest {

    private static final long MAX_WINDOW_SECONDS = 366L * 86_400;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory store", "fallback of a failing store"})
    @DisplayName("10^12 per 366 days: counted, the window ends after exactly 366 days, the headers say so")
    void largestBucket(String chain) {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        Limiter limiter = limiter(chain, clock);
        Bucket bucket = Bucket.of("largest", Bucket.MAX_LIMIT, Bucket.MAX_WINDOW);

        Verdict first = limiter.consume(bucket, "k");
        clock.advance(Bucket.MAX_WINDOW.minusMillis(1));
        Verdict last = limiter.consume(bucket, "k");
        clock.advance(Duration.ofMillis(1));
        Verdict reopened = limiter.consume(bucket, "k");

        assertThat(first.remaining()).isEqualTo(999_999_999_999L);
        assertThat(first.retryAfterSeconds()).isEqualTo(MAX_WINDOW_SECONDS);
        assertThat(last.remaining()).isEqualTo(999_999_999_998L);
        assertThat(last.retryAfterSeconds()).isEqualTo(1);
        assertThat(reopened.remaining()).isEqualTo(999_999_999_999L);
        List<Applied> applied = List.of(new Applied(bucket, first));
        assertThat(RateLimitHeaders.policy(applied)).isEqualTo("\"largest\";q=1000000000000;w=31622400");
        assertThat(RateLimitHeaders.rateLimit(applied)).isEqualTo("\"largest\";r=999999999999;t=31622400");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory store", "fallback of a failing store"})
    @DisplayName("1 per second: the second attempt is denied with t=1, the next second is a new window")
    void smallestBucket(String chain) {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        Limiter limiter = limiter(chain, clock);
        Bucket bucket = Bucket.of("smallest", 1, Duration.ofSeconds(1));

        limiter.consume(bucket, "k");
        Verdict denied = limiter.consume(bucket, "k");
        clock.advance(Duration.ofSeconds(1));

        assertThat(denied.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(RateLimitHeaders.rateLimit(List.of(new Applied(bucket, denied))))
                .isEqualTo("\"smallest\";r=0;t=1");
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    private static Limiter limiter(String chain, ManualClock clock) {
        MemoryRateLimiter memory = new MemoryRateLimiter(clock, 100_000_000);
        if (chain.equals("memory store")) {
            return memory;
        }
        return new OutagePolicyLimiter(new UnavailableStore(), Optional.of(memory), new CompositeOutageListener(List.of()));
    }
}
