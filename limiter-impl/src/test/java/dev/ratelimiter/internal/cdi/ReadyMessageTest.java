package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.testing.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** "Rate limiter ready" is logged once every startup check has passed, never before a failed start. */
class ReadyMessageTest {

    private LogCapture log;

    @BeforeEach
    void listen() {
        log = LogCapture.of(LimiterRuntime.class);
    }

    @AfterEach
    void stopListening() {
        log.close();
    }

    @Test
    @DisplayName("a @RateLimited naming a bucket that is not configured: the start fails and 'ready' is never logged")
    void notReadyOnFailedStart() {
        assertThatThrownBy(() -> CdiContainer.start(Map.of(), MisconfiguredBean.class).close())
                .isInstanceOf(ConfigurationException.class);
        assertThat(log.messages(Level.ALL)).noneMatch(message -> message.startsWith("Rate limiter ready"));
    }

    @Test
    @DisplayName("a valid configuration: 'ready' is logged once")
    void readyOnceChecked() {
        try (CdiContainer cdi = CdiContainer.start(Map.of("ratelimiter.buckets.login.limit", "3",
                "ratelimiter.buckets.login.window", "PT15M", "ratelimiter.buckets.search.limit", "2",
                "ratelimiter.buckets.search.window", "PT1M"), GuardedService.class)) {
            assertThat(log.messages(Level.ALL)).filteredOn(message -> message.startsWith("Rate limiter ready")).hasSize(1);
        }
    }
}
