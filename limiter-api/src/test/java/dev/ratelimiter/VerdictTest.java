package dev.ratelimiter;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class VerdictTest {

    @Test
    @DisplayName("Retry-After is resetAfter rounded up to whole seconds")
    void retryAfterRoundsUp() {
        assertThat(Verdict.denied(5, Duration.ofMillis(49_700)).retryAfterSeconds()).isEqualTo(50);
        assertThat(Verdict.denied(5, Duration.ofMillis(400)).retryAfterSeconds()).isEqualTo(1);
        assertThat(Verdict.denied(5, Duration.ofSeconds(60)).retryAfterSeconds()).isEqualTo(60);
        assertThat(Verdict.denied(5, Duration.ofNanos(60_000_000_001L)).retryAfterSeconds()).isEqualTo(61);
    }

    @Test
    @DisplayName("Retry-After is at least 1, also for an unknown or elapsed reset time")
    void retryAfterAtLeastOne() {
        assertThat(Verdict.unavailable(5, Duration.ZERO).retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    @DisplayName("remaining and resetAfter cannot be negative")
    void noNegatives() {
        assertThatIllegalArgumentException().isThrownBy(() -> Verdict.allowed(5, -1, Duration.ZERO));
        assertThatIllegalArgumentException().isThrownBy(() -> Verdict.allowed(5, 1, Duration.ofSeconds(-1)));
    }
}
