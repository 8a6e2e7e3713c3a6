package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.contract.ManualClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table of docs/guide.md#choosing-an-algorithm, computed: what a fixed window, token buckets and a sliding window of
 * the same rate (100 per minute) admit from one key under the same traffic, on the in-memory store with a manual clock. Every
 * store decides each algorithm by the same rule (the contract suite), so the numbers hold for each of them.
 */
class AlgorithmComparisonTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Limit RATE = new Limit(100, Duration.ofMinutes(1));

    private static Bucket bucket(Algorithm algorithm, long burst) {
        return Bucket.of("compared", List.of(RATE), OutagePolicy.FALLBACK, algorithm, burst);
    }

    /** Requests every {@code spacing} from {@code from} for {@code span}; how many were allowed. */
    private static int admitted(MemoryRateLimiter limiter, ManualClock clock, Bucket bucket, Duration from,
                                Duration span, Duration spacing) {
        clock.set(START.plus(from));
        int allowed = 0;
        for (Duration at = Duration.ZERO; at.compareTo(span) < 0; at = at.plus(spacing)) {
            clock.set(START.plus(from).plus(at));
            allowed += limiter.consume(bucket, "client").isAllowed() ? 1 : 0;
        }
        return allowed;
    }

    /** A quiet key's first call at 0, then 1 000 calls in the second across its first window's end (59.5 to 60.5 s). */
    private static int acrossBoundary(Bucket bucket) {
        ManualClock clock = new ManualClock(START);
        MemoryRateLimiter limiter = new MemoryRateLimiter(clock, 10);
        limiter.consume(bucket, "client");
        return admitted(limiter, clock, bucket, Duration.ofMillis(59_500), Duration.ofSeconds(1),
                Duration.ofMillis(1));
    }

    /** 1 000 calls in one second from a quiet key. */
    private static int burstFromQuiet(Bucket bucket) {
        ManualClock clock = new ManualClock(START);
        return admitted(new MemoryRateLimiter(clock, 10), clock, bucket, Duration.ZERO, Duration.ofSeconds(1),
                Duration.ofMillis(1));
    }

    /** A call every 100 ms for ten minutes: the sustained rate, beyond the first burst. */
    private static int tenMinutesFlat(Bucket bucket) {
        ManualClock clock = new ManualClock(START);
        return admitted(new MemoryRateLimiter(clock, 10), clock, bucket, Duration.ZERO, Duration.ofMinutes(10),
                Duration.ofMillis(100));
    }

    @Test
    @DisplayName("100 per minute: a fixed window admits 100 at once and 199 across its end; a token bucket its burst and "
            + "what refills meanwhile, across an end as anywhere; a sliding window 100 at once and none more across "
            + "the end; all about the rate over ten minutes")
    void theGuidesTable() {
        Bucket fixed = bucket(Algorithm.FIXED_WINDOW, 0);
        Bucket tokens = bucket(Algorithm.TOKEN_BUCKET, 0);
        Bucket smooth = bucket(Algorithm.TOKEN_BUCKET, 10);
        Bucket spaced = bucket(Algorithm.TOKEN_BUCKET, 1);
        Bucket sliding = bucket(Algorithm.SLIDING_WINDOW, 0);

        assertThat(List.of(burstFromQuiet(fixed), burstFromQuiet(tokens), burstFromQuiet(smooth),
                burstFromQuiet(spaced), burstFromQuiet(sliding))).containsExactly(100, 101, 11, 2, 100);
        assertThat(List.of(acrossBoundary(fixed), acrossBoundary(tokens), acrossBoundary(smooth),
                acrossBoundary(spaced), acrossBoundary(sliding))).containsExactly(199, 101, 11, 2, 99);
        assertThat(List.of(tenMinutesFlat(fixed), tenMinutesFlat(tokens), tenMinutesFlat(smooth),
                tenMinutesFlat(spaced), tenMinutesFlat(sliding))).containsExactly(1_000, 1_099, 1_009, 1_000, 991);
    }
}
