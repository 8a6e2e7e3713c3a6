package dev.ratelimiter.spi;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The store's answer as RateLimitStore#consume lays it out: what a store writes, index by index. */
class StoreAnswersTest {

    private static final List<Limit> TWO = List.of(new Limit(5, Duration.ofSeconds(1)),
            new Limit(50, Duration.ofMinutes(1)));

    @Test
    @DisplayName("a fixed window, then a sliding window: flag, two numbers per fixed window, three per sliding one")
    void layout() {
        Bucket fixed = Bucket.of("f", TWO, OutagePolicy.FALLBACK);
        Bucket sliding = Bucket.of("s", TWO, OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        assertThat(StoreAnswers.length(fixed)).isEqualTo(5).isEqualTo(StoreItem.answerLength(fixed));
        assertThat(StoreAnswers.length(sliding)).isEqualTo(7).isEqualTo(StoreItem.answerLength(sliding));

        long[] answer = new long[12];
        StoreAnswers.writeAllowed(answer, 0, true);
        StoreAnswers.writeFixedWindow(answer, 0, 0, 3, 900);
        StoreAnswers.writeFixedWindow(answer, 0, 1, 4, 59_000);
        int at = StoreAnswers.length(fixed);
        StoreAnswers.writeAllowed(answer, at, false);
        StoreAnswers.writeSlidingWindow(answer, at, 0, 5, 2, 400);
        StoreAnswers.writeSlidingWindow(answer, at, 1, 6, 1, 30_000);

        assertThat(answer).containsExactly(1, 3, 900, 4, 59_000, 0, 5, 2, 400, 6, 1, 30_000);
        assertThat(StoreAnswers.allowed(answer, 0)).isTrue();
        assertThat(StoreAnswers.fixedCount(answer, 0, 1)).isEqualTo(4);
        assertThat(StoreAnswers.fixedEndMillis(answer, 0, 1)).isEqualTo(59_000);
        assertThat(StoreAnswers.allowed(answer, at)).isFalse();
        assertThat(StoreAnswers.slidingCurrent(answer, at, 1)).isEqualTo(6);
        assertThat(StoreAnswers.slidingPrevious(answer, at, 1)).isEqualTo(1);
        assertThat(StoreAnswers.slidingEndMillis(answer, at, 1)).isEqualTo(30_000);
    }

    @Test
    @DisplayName("a token bucket: per window the tokens missing from full, then the milliseconds until full")
    void tokenBucket() {
        Bucket tokens = Bucket.of("t", TWO, OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        long[] answer = new long[StoreAnswers.length(tokens)];
        StoreAnswers.writeAllowed(answer, 0, true);
        StoreAnswers.writeTokenBucket(answer, 0, 0, 1, 200);
        StoreAnswers.writeTokenBucket(answer, 0, 1, 1, 1_200);

        assertThat(answer).containsExactly(1, 1, 200, 1, 1_200);
        assertThat(StoreAnswers.tokensMissing(answer, 0, 1)).isEqualTo(1);
        assertThat(StoreAnswers.tokensFullMillis(answer, 0, 1)).isEqualTo(1_200);
    }
}
