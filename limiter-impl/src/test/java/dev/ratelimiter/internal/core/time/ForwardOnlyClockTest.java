package dev.ratelimiter.internal.core.time;

import dev.ratelimiter.contract.ManualClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ForwardOnlyClockTest {

    private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    @DisplayName("a source stepped back an hour: the step counts as the elapsed time, then the source's pace again")
    void stepBackCountsElapsedTime() {
        ManualClock source = new ManualClock(T);
        InstantSource clock = ForwardOnlyClock.of(source);
        source.advance(Duration.ofSeconds(10));
        assertThat(clock.instant()).isEqualTo(T.plusSeconds(10));
        long read = System.nanoTime();
        await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - read >= 300_000_000L);

        source.advance(Duration.ofSeconds(-3600));
        Instant afterStep = clock.instant();
        source.advance(Duration.ofSeconds(5));

        assertThat(afterStep).as("300 ms or more of elapsed time, not an hour back")
                .isBetween(T.plusMillis(10_300), T.plusSeconds(15));
        assertThat(clock.instant()).isEqualTo(afterStep.plusSeconds(5));
    }

    @Test
    @DisplayName("a source stepped forward is followed: windows end early, never late")
    void stepForwardIsFollowed() {
        ManualClock source = new ManualClock(T);
        InstantSource clock = ForwardOnlyClock.of(source);
        source.advance(Duration.ofHours(1));
        assertThat(clock.instant()).isEqualTo(T.plusSeconds(3600));
    }

    @Test
    @DisplayName("the default elapsed-time clock is taken as it is; it starts at the wall clock and never goes back")
    void elapsedTimeClock() {
        long before = System.currentTimeMillis();
        ElapsedTimeClock elapsed = ElapsedTimeClock.startingNow();
        long after = System.currentTimeMillis();
        assertThat(ForwardOnlyClock.of(elapsed)).isSameAs(elapsed);
        long first = elapsed.millis();
        assertThat(first).isBetween(before, after + 1_000);
        for (int i = 0; i < 10_000; i++) {
            assertThat(elapsed.millis()).isGreaterThanOrEqualTo(first);
        }
    }
}
