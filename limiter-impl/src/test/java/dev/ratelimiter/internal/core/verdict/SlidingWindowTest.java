package dev.ratelimiter.internal.core.verdict;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The sliding window's arithmetic and verdicts (docs/guide.md#sliding-windows), apart from any store. */
class SlidingWindowTest {

    /** One window's state: limit, length (ms), current and previous counts, ms until the current window ends, need. */
    record State(long limit, long windowMillis, long current, long previous, long endMillis, long needed) {
    }

    /** Whether the call fits {@code delta} ms from now, if nothing else is counted: the windows roll on meanwhile. */
    private static boolean fitsAfter(State s, long delta) {
        if (delta < s.endMillis()) {
            return SlidingWindow.fits(s.limit(), s.windowMillis(), s.current(), s.previous(), s.endMillis() - delta,
                    s.needed());
        }
        if (delta < s.endMillis() + s.windowMillis()) {
            return SlidingWindow.fits(s.limit(), s.windowMillis(), 0, s.current(), s.endMillis() + s.windowMillis()
                    - delta, s.needed());
        }
        return s.needed() <= s.limit();
    }

    @Provide
    Arbitrary<State> states() {
        Arbitrary<Long> limits = Arbitraries.oneOf(Arbitraries.longs().between(1, 1_000),
                Arbitraries.longs().between(1, Bucket.MAX_LIMIT));
        Arbitrary<Long> windows = Arbitraries.longs().between(1, Bucket.MAX_WINDOW.toSeconds()).map(s -> s * 1_000);
        return Combinators.combine(limits, windows, Arbitraries.doubles().between(0, 1),
                        Arbitraries.doubles().between(0, 1), Arbitraries.doubles().between(0, 1),
                        Arbitraries.doubles().between(0, 1))
                .as((limit, window, cur, prev, end, need) -> new State(limit, window, (long) (cur * limit),
                        (long) (prev * limit), Math.max(1, (long) (end * window)),
                        Math.max(1, (long) (need * limit))));
    }

    @Property(tries = 2_000)
    @Label("a refusal's wait is the first millisecond at which the same call fits, across the window's end too")
    void waitIsTheFirstMillisecondItFits(@ForAll("states") State s) {
        long wait = SlidingWindow.waitMillis(s.limit(), s.windowMillis(), s.current(), s.previous(), s.endMillis(),
                s.needed());
        assertThat(wait).isBetween(0L, s.endMillis() + s.windowMillis());
        assertThat(fitsAfter(s, wait)).as("fits after the wait").isTrue();
        if (wait > 0) {
            assertThat(fitsAfter(s, wait - 1)).as("not a millisecond earlier").isFalse();
        }
    }

    @Test
    @DisplayName("the largest limits and windows, where IEEE 754 rounds prev x r across the exact bound: the wait is "
            + "where every store's rule turns, not the exact one (found by CI's run of the property above)")
    void waitsWhereTheDoubleRuleTurns() {
        for (State s : List.of(new State(1_000_000_000_000L, 25_286_878_000L, 500_000_000_000L, 500_000_000_000L, 1,
                        500_000_000_000L),
                new State(1_000_000_000_000L, 6_728_506_000L, 500_000_000_000L, 391_450_322_593L, 6_728_499_271L,
                        500_000_000_000L))) {
            waitIsTheFirstMillisecondItFits(s);
        }
    }

    @Test
    @DisplayName("10 per 10 s, 5 counted now and 10 before, 8 s left: the previous weighs 8, so one more fits once it "
            + "weighs 4, in 4 s; a cost of 6 waits for the next window's 5 s")
    void handedWaits() {
        assertThat(SlidingWindow.waitMillis(10, 10_000, 5, 10, 8_000, 1)).isEqualTo(4_000);
        assertThat(SlidingWindow.waitMillis(10, 10_000, 5, 10, 8_000, 6)).as("cur 5 becomes prev: 5 x r / 10 s <= 4")
                .isEqualTo(8_000 + 2_000);
        assertThat(SlidingWindow.waitMillis(10, 10_000, 0, 0, 10_000, 10)).isZero();
    }

    @Test
    @DisplayName("verdicts: remaining rounds the weighted count up, an allowed call resets when all slid out, a "
            + "refusal when it fits; several windows show each and the one that allows last")
    void verdicts() {
        Bucket one = Bucket.of("s", List.of(new Limit(10, Duration.ofSeconds(10))), OutagePolicy.FALLBACK,
                Algorithm.SLIDING_WINDOW, 0);
        Verdict allowed = SlidingWindows.single(one, 1, true, 3, 5, 5_000);
        assertThat(allowed.remaining()).as("10 - 3 - 2.5 rounded up").isEqualTo(4);
        assertThat(allowed.resetAfter()).isEqualTo(Duration.ofSeconds(15));
        assertThat(SlidingWindows.single(one, 1, true, 0, 5, 5_000).resetAfter()).as("only the previous counts")
                .isEqualTo(Duration.ofSeconds(5));
        Verdict refused = SlidingWindows.single(one, 1, false, 10, 0, 5_000);
        assertThat(refused.resetAfter()).as("the next window, once 10 x r / 10 s <= 9").isEqualTo(
                Duration.ofMillis(6_000));
        assertThat(refused.retryAfterSeconds()).isEqualTo(6);

        Bucket two = Bucket.of("t", List.of(new Limit(2, Duration.ofSeconds(2)), new Limit(3,
                Duration.ofSeconds(60))), OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        Verdict both = SlidingWindows.of(two, 1, false, new long[] {1, 3}, new long[] {2, 0},
                new long[] {1_000, 57_000});
        assertThat(both.windows()).extracting(Verdict.Window::remaining).containsExactly(0L, 0L);
        assertThat(both.resetAfter()).as("the minute's window allows it last").isEqualTo(Duration.ofSeconds(77));
        assertThat(both.limit()).isEqualTo(3);
        assertThat(Verdicts.untouched(two).windows()).extracting(Verdict.Window::remaining)
                .containsExactly(2L, 3L);
    }
}
