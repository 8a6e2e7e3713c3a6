package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.contract.ManualClock;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the sliding window counter admits, measured on the in-memory store with a manual clock, for
 * docs/guide.md#sliding-windows: its worst case over a span s of at most one window w, limit × (1 + s / w), reached and
 * never passed; and its error on spread traffic against an exact sliding log of the calls it admitted. Every store
 * decides by the same rule in the same arithmetic (the contract suite), so the figures hold for each of them.
 */
class SlidingWindowAccuracyTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final long LIMIT = 100;
    private static final long WINDOW_MILLIS = 60_000;
    private static final Bucket BUCKET = Bucket.of("sliding", List.of(new Limit(LIMIT,
            Duration.ofMillis(WINDOW_MILLIS))), OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);

    /** The instants (ms from START) of the calls the limiter admitted among calls at {@code instants}, in order. */
    private static List<Long> admitted(long[] instants) {
        ManualClock clock = new ManualClock(START);
        MemoryRateLimiter limiter = new MemoryRateLimiter(clock, 10);
        List<Long> admitted = new ArrayList<>();
        for (long at : instants) {
            clock.set(START.plusMillis(at));
            if (limiter.consume(BUCKET, "client").isAllowed()) {
                admitted.add(at);
            }
        }
        return admitted;
    }

    /** The most of {@code admitted} (sorted) inside any span of {@code spanMillis}, ends included. */
    private static int mostInSpan(List<Long> admitted, long spanMillis) {
        int most = 0;
        int from = 0;
        for (int to = 0; to < admitted.size(); to++) {
            while (admitted.get(to) - admitted.get(from) > spanMillis) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        return most;
    }

    /**
     * The adversary of the bound: the first window's calls all at its last millisecond, then a call every
     * millisecond for a whole window, each admitted as soon as the previous window's weight allows it.
     */
    private static List<Long> fillAtEndThenFlood() {
        long[] instants = new long[(int) (LIMIT + WINDOW_MILLIS + 1)];
        int n = 0;
        instants[n++] = 0; // opens the first window, so its end is at WINDOW_MILLIS
        for (int i = 1; i < LIMIT; i++) {
            instants[n++] = WINDOW_MILLIS - 1;
        }
        for (long at = WINDOW_MILLIS - 1; at < 2 * WINDOW_MILLIS - 1 && n < instants.length; at++) {
            instants[n++] = at;
        }
        return admitted(java.util.Arrays.copyOf(instants, n));
    }

    @Test
    @DisplayName("worst case over a span s <= w: the limit's previous window filled at its end, then calls as fast as "
            + "they pass, admit limit x (1 + s / w), give or take the rounding of one call, and no more")
    void worstCaseIsLimitTimesOnePlusSpanOverWindow() {
        List<Long> admitted = fillAtEndThenFlood();
        List<Integer> most = new ArrayList<>();
        for (int quarters = 1; quarters <= 4; quarters++) {
            long span = quarters == 4 ? WINDOW_MILLIS - 1 : WINDOW_MILLIS * quarters / 4;
            long bound = LIMIT + LIMIT * quarters / 4;
            most.add(mostInSpan(admitted, span));
            assertThat(most.get(quarters - 1)).as("a span of %d/4 window", quarters)
                    .isLessThanOrEqualTo((int) bound).isGreaterThanOrEqualTo((int) bound - 2);
        }
        assertThat(most).as("the guide's table").containsExactly(123, 148, 173, 198);
    }

    @Property(tries = 200)
    @Label("any traffic: no span s <= w holds more than limit x (1 + s / w) admitted calls")
    void noTrafficPassesTheBound(@ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 400) Integer> gaps,
                                 @ForAll @IntRange(min = 1, max = 4) int quarters) {
        long[] instants = new long[gaps.size()];
        long at = 0;
        for (int i = 0; i < instants.length; i++) {
            at += gaps.get(i) * 150L; // up to a minute between calls, many at the same millisecond
            instants[i] = at;
        }
        long span = WINDOW_MILLIS * quarters / 4;
        assertThat(mostInSpan(admitted(instants), span)).isLessThanOrEqualTo((int) (LIMIT + LIMIT * quarters / 4));
    }

    /** Calls at random (Poisson) instants at {@code rate} times the limit's rate for a simulated day. */
    private static long[] poisson(double rate, long seed) {
        Random random = new Random(seed);
        double meanGapMillis = WINDOW_MILLIS / (LIMIT * rate);
        List<Long> instants = new ArrayList<>();
        double at = 0;
        while (true) {
            at += -Math.log(1 - random.nextDouble()) * meanGapMillis;
            if (at >= 86_400_000) {
                return instants.stream().mapToLong(Long::longValue).toArray();
            }
            instants.add((long) at);
        }
    }

    @Test
    @DisplayName("spread traffic (Poisson, 0.5 to 10 x the limit's rate, a simulated day each): within 2 % of the calls "
            + "an exact sliding log admits, and never more than 1.2 x the limit in one window length; printed for the "
            + "guide")
    void errorOnSpreadTrafficIsSmall() {
        for (double rate : new double[] {0.5, 0.9, 1.0, 1.1, 1.5, 2, 3, 10}) {
            long[] instants = poisson(rate, 42);
            List<Long> sliding = admitted(instants);
            int exact = exactlyAdmitted(instants);
            double ratio = (double) sliding.size() / exact;
            double most = (double) mostInSpan(sliding, WINDOW_MILLIS - 1) / LIMIT;
            System.out.printf("sliding window, Poisson at %.1f x the rate: admitted %.4f x an exact sliding log's; "
                    + "most in one window length %.2f x the limit%n", rate, ratio, most);
            assertThat(ratio).as("admitted against an exact log at %.1f x", rate).isBetween(0.98, 1.02);
            assertThat(most).as("most in a window length at %.1f x", rate).isLessThanOrEqualTo(1.2);
        }
    }

    /** How many calls an exact sliding log admits: at most the limit within any window length. */
    private static int exactlyAdmitted(long[] instants) {
        ArrayDeque<Long> log = new ArrayDeque<>();
        int admitted = 0;
        for (long now : instants) {
            while (!log.isEmpty() && log.peekFirst() <= now - WINDOW_MILLIS) {
                log.pollFirst();
            }
            if (log.size() < LIMIT) {
                log.addLast(now);
                admitted++;
            }
        }
        return admitted;
    }
}
