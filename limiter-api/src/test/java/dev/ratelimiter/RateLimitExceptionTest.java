package dev.ratelimiter;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RateLimitExceptionTest {

    private static final Bucket EXPORTS = Bucket.of("exports", 10, Duration.ofHours(1));

    @Test
    @DisplayName("of: a denial is RateLimitExceededException, a fail-closed outage RateLimiterUnavailableException, each with the bucket and verdict")
    void refusalForVerdict() {
        Verdict denied = Verdict.denied(10, Duration.ofSeconds(30));
        Verdict unavailable = Verdict.unavailable(10, Duration.ofSeconds(2));

        assertThat(RateLimitException.of(EXPORTS, denied)).isInstanceOf(RateLimitExceededException.class)
                .satisfies(e -> {
                    assertThat(e.bucket()).isEqualTo(EXPORTS);
                    assertThat(e.verdict()).isEqualTo(denied);
                    assertThat(e.getStackTrace()).isEmpty();
                });
        assertThat(RateLimitException.of(EXPORTS, unavailable)).isInstanceOf(RateLimiterUnavailableException.class)
                .satisfies(e -> assertThat(e.verdict()).isEqualTo(unavailable));
    }

    @Test
    @DisplayName("of: an allowed attempt is no refusal")
    void allowedIsNoRefusal() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimitException.of(EXPORTS, Verdict.allowed(10, 9, Duration.ofHours(1))))
                .withMessageContaining("'exports'");
    }
}
