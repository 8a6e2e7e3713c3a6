package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Sweepable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class PeriodicSweeperTest {

    @Test
    @DisplayName("a sweep that throws, an Error included, is logged and the next sweeps still run on schedule")
    void survivesAnyThrowable() {
        AtomicInteger sweeps = new AtomicInteger();
        Sweepable failingTwice = () -> {
            int sweep = sweeps.incrementAndGet();
            if (sweep == 1) {
                throw new NoClassDefFoundError("org/postgresql/util/PSQLException");
            }
            if (sweep == 2) {
                throw new IllegalStateException("pool closed");
            }
            return 0;
        };
        try (PeriodicSweeper sweeper = new PeriodicSweeper(failingTwice, Duration.ofMillis(10))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> sweeps.get() >= 4);
        }
        assertThat(sweeps.get()).as("sweeps after an Error and an exception").isGreaterThanOrEqualTo(4);
    }
}
