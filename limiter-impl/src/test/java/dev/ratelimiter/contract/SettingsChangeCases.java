package dev.ratelimiter.contract;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.ratelimiter.contract.Capability.SLIDING_WINDOW;
import static dev.ratelimiter.contract.Capability.TOKEN_BUCKET;
import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Settings changed (docs/stores.md#counters-across-a-change-of-settings): a reload or a restart gives a bucket of the
 * same name other windows, windows of other lengths or another algorithm, and stores count by bucket name and key, so
 * a key's counters meet the new settings at its next call. The first verdict after the change must tell the truth: a
 * Retry-After never past the new window's end, and the call allowed at it. Every store runs the fixed-window cases;
 * the token-bucket and sliding-window ones need their algorithm. New windows are short and waited for in whole
 * seconds, so a store timed by its own clock runs these cases in real time.
 */
abstract class SettingsChangeCases extends ContractCases {

    SettingsChangeCases(RateLimiterContract contract) {
        super(contract);
    }

    /** {@code bucket}'s name under other settings: the algorithm and windows given, burst 0. */
    private static Bucket changed(Bucket bucket, Algorithm algorithm, Limit... limits) {
        return Bucket.of(bucket.name(), List.of(limits), OutagePolicy.FALLBACK, algorithm, 0);
    }

    @Test
    @DisplayName("settings changed: a fixed window shortened from 60 s to 2 s keeps the 3 counted and ends within "
            + "2 s: the first call is refused with a true Retry-After of at most 2 s, and the next window is 2 s long")
    void shortenedWindowEndsWithinNewLength() {
        Bucket before = bucket("shortened", limit(3, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(2)));
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).as("the 3 counted apply to the new window").isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.resetAfter()).as("within the new window, not the old one's 60 s").isPositive()
                .isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertRetryAfterTrue(after, "k", refused);
        Verdict next = limiter.consume(after, "k");
        assertThat(next.remaining()).as("a new window opened at Retry-After, counting 2").isEqualTo(1);
        assertThat(next.resetAfter()).isLessThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    @DisplayName("settings changed: a fixed window lengthened from 2 s to 60 s keeps the count made and its end; the "
            + "window that follows is 60 s long")
    void lengthenedWindowKeepsCountAndEnd() {
        Bucket before = bucket("lengthened", limit(3, Duration.ofSeconds(2)));
        Bucket after = changed(before, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(60)));
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.resetAfter()).as("the open window's end, which did not move").isPositive()
                .isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertRetryAfterTrue(after, "k", refused);
        Verdict next = limiter.consume(after, "k");
        assertThat(next.remaining()).isEqualTo(1);
        assertThat(next.resetAfter()).as("the new length").isGreaterThan(Duration.ofSeconds(50));
    }

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("settings changed, token bucket: 4 per 60 s spent, then 4 per 2 s: the time owed is at most the new "
            + "2 s refill, so the first call is refused until one token of 0.5 s is back, and allowed at Retry-After")
    void tokenBucketShortenedWindowOwesAtMostNewRefill() {
        Bucket before = tokenBucket("tb-shortened", 0, limit(4, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.TOKEN_BUCKET, limit(4, Duration.ofSeconds(2)));
        assertThat(admitted(before, 6)).isEqualTo(4);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).as("empty under the new settings too").isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.resetAfter()).as("one token of the new rate, not of the old 15 s").isPositive()
                .isLessThanOrEqualTo(Duration.ofMillis(500));
        assertRetryAfterTrue(after, "k", refused);
    }

    @Test
    @Requires(SLIDING_WINDOW)
    @DisplayName("settings changed, sliding window: 60 s shortened to 2 s keeps the 4 counted in a current window "
            + "ending within 2 s; they weigh on as the previous window's, so a true Retry-After lies within two new "
            + "lengths")
    void slidingWindowShortenedWindowEndsWithinNewLength() {
        Bucket before = slidingWindow("sw-shortened", limit(4, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.SLIDING_WINDOW, limit(4, Duration.ofSeconds(2)));
        assertThat(admitted(before, 6)).isEqualTo(4);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.resetAfter()).as("the new window's end, then the 4 sliding out to 3")
                .isGreaterThan(Duration.ofSeconds(2)).isLessThanOrEqualTo(Duration.ofSeconds(4));
        assertRetryAfterTrue(after, "k", refused);
    }

    @Test
    @DisplayName("settings changed: a bucket going from one window to two, or from two to one, starts afresh")
    void windowAddedStartsAfresh() {
        Bucket one = bucket("window-added", limit(3, Duration.ofSeconds(60)));
        windowAddedStartsAfresh(one, changed(one, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1))));
        Bucket two = bucket("window-removed", limit(3, Duration.ofSeconds(60)), limit(10, Duration.ofHours(1)));
        windowAddedStartsAfresh(two, changed(two, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(60))));
    }

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("settings changed, token bucket: one window to two, or two to one, starts afresh")
    void tokenBucketWindowAddedStartsAfresh() {
        Bucket one = tokenBucket("tb-window-added", 0, limit(3, Duration.ofSeconds(60)));
        windowAddedStartsAfresh(one, changed(one, Algorithm.TOKEN_BUCKET, limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1))));
        Bucket two = tokenBucket("tb-window-removed", 0, limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1)));
        windowAddedStartsAfresh(two, changed(two, Algorithm.TOKEN_BUCKET, limit(3, Duration.ofSeconds(60))));
    }

    @Test
    @Requires(SLIDING_WINDOW)
    @DisplayName("settings changed, sliding window: one window to two, or two to one, starts afresh")
    void slidingWindowWindowAddedStartsAfresh() {
        Bucket one = slidingWindow("sw-window-added", limit(3, Duration.ofSeconds(60)));
        windowAddedStartsAfresh(one, changed(one, Algorithm.SLIDING_WINDOW, limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1))));
        Bucket two = slidingWindow("sw-window-removed", limit(3, Duration.ofSeconds(60)),
                limit(10, Duration.ofHours(1)));
        windowAddedStartsAfresh(two, changed(two, Algorithm.SLIDING_WINDOW, limit(3, Duration.ofSeconds(60))));
    }

    /** Spends {@code before}'s first window, then decides under {@code after}: allowed, every window less one. */
    private void windowAddedStartsAfresh(Bucket before, Bucket after) {
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict fresh = limiter.consume(after, "k");
        assertThat(fresh.outcome()).as("%s: afresh", before.name()).isEqualTo(Outcome.ALLOWED);
        List<Long> left = after.hasSeveralWindows() ? remaining(fresh) : List.of(fresh.remaining());
        List<Long> full = new ArrayList<>();
        for (int i = 0; i < after.limits().size(); i++) {
            full.add(capacity(after, i) - 1);
        }
        assertThat(left).as("%s: every window less this call", before.name()).isEqualTo(full);
        assertThat(fresh.resetAfter()).isLessThanOrEqualTo(Duration.ofHours(1));
    }

    @Test
    @DisplayName("settings changed, several windows: the 2 s window, kept, keeps its 3; the 60 s window, now 30 s, "
            + "opens afresh; the first call is refused by the 2 s window with a true Retry-After")
    void severalWindowsKeepTheCountOfALengthKept() {
        Bucket before = bucket("windows-changed", limit(3, Duration.ofSeconds(2)), limit(5, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.FIXED_WINDOW, limit(3, Duration.ofSeconds(2)),
                limit(5, Duration.ofSeconds(30)));
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(remaining(refused)).containsExactly(0L, 5L);
        assertThat(refused.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertRetryAfterTrue(after, "k", refused);
        assertThat(remaining(limiter.consume(after, "k"))).containsExactly(1L, 3L);
    }

    @Test
    @Requires(SLIDING_WINDOW)
    @DisplayName("settings changed, sliding windows: the 2 s window, kept, keeps its 3; the 60 s window, now 30 s, "
            + "has nothing to weigh; refused by the 2 s window with a true Retry-After")
    void slidingWindowSeveralWindowsKeepTheCountOfALengthKept() {
        Bucket before = slidingWindow("sw-windows-changed", limit(3, Duration.ofSeconds(2)),
                limit(6, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.SLIDING_WINDOW, limit(3, Duration.ofSeconds(2)),
                limit(6, Duration.ofSeconds(30)));
        assertThat(admitted(before, 5)).isEqualTo(3);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(remaining(refused)).containsExactly(0L, 6L);
        assertThat(refused.resetAfter()).as("the 2 s window's end, then its 3 sliding out to 2").isPositive()
                .isLessThanOrEqualTo(Duration.ofSeconds(4));
        assertRetryAfterTrue(after, "k", refused);
    }

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("settings changed, token buckets: the 2 s window's 2 tokens taken still refuse the first call, "
            + "whatever becomes of the 60 s window now 30 s; allowed at Retry-After")
    void tokenBucketWindowLengthChangedAmongSeveral() {
        Bucket before = tokenBucket("tb-windows-changed", 0, limit(2, Duration.ofSeconds(2)),
                limit(10, Duration.ofSeconds(60)));
        Bucket after = changed(before, Algorithm.TOKEN_BUCKET, limit(2, Duration.ofSeconds(2)),
                limit(10, Duration.ofSeconds(30)));
        assertThat(admitted(before, 5)).isEqualTo(2);
        Verdict refused = limiter.consume(after, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(remaining(refused).get(0)).isZero();
        assertThat(remaining(refused).get(1)).as("at most the 30 s window's 10, never below 10 - 2 x 6 s / 3 s")
                .isBetween(6L, 10L);
        assertThat(refused.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
        assertRetryAfterTrue(after, "k", refused);
    }

    @Test
    @Requires({TOKEN_BUCKET, SLIDING_WINDOW})
    @DisplayName("settings changed, algorithm: a spent token bucket becoming a fixed window, and a spent sliding "
            + "window becoming a token bucket, start afresh")
    void changedAlgorithmFromTokenOrSlidingStartsAfresh() {
        Bucket tokens = tokenBucket("algorithm-from-tokens", 0, limit(2, Duration.ofSeconds(60)));
        Bucket fixed = changed(tokens, Algorithm.FIXED_WINDOW, limit(2, Duration.ofSeconds(60)));
        assertThat(admitted(tokens, 4)).isEqualTo(2);
        assertThat(limiter.consume(fixed, "k").remaining()).isEqualTo(1);
        Bucket sliding = slidingWindow("algorithm-from-sliding", limit(2, Duration.ofSeconds(60)));
        Bucket refilled = changed(sliding, Algorithm.TOKEN_BUCKET, limit(2, Duration.ofSeconds(60)));
        assertThat(admitted(sliding, 4)).isEqualTo(2);
        assertThat(limiter.consume(refilled, "k").remaining()).isEqualTo(1);
    }
}
