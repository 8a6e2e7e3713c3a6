package dev.ratelimiter.cdi;

import dev.ratelimiter.core.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** "Rate limiter ready" is logged once every startup check has passed, never before a failed start. */
class ReadyMessageTest {

    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final Logger logger = Logger.getLogger(LimiterRuntime.class.getName());
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            messages.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        logger.addHandler(handler);
    }

    @AfterEach
    void stopListening() {
        logger.removeHandler(handler);
    }

    @Test
    @DisplayName("a @RateLimited naming a bucket that is not configured: the start fails and 'ready' is never logged")
    void notReadyOnFailedStart() {
        assertThatThrownBy(() -> CdiContainer.start(Map.of(), MisconfiguredBean.class).close())
                .isInstanceOf(ConfigurationException.class);
        assertThat(messages).noneMatch(message -> message.startsWith("Rate limiter ready"));
    }

    @Test
    @DisplayName("a valid configuration: 'ready' is logged once")
    void readyOnceChecked() {
        try (CdiContainer cdi = CdiContainer.start(Map.of("ratelimiter.buckets.login.limit", "3",
                "ratelimiter.buckets.login.window", "PT15M", "ratelimiter.buckets.search.limit", "2",
                "ratelimiter.buckets.search.window", "PT1M"), GuardedService.class)) {
            assertThat(messages).filteredOn(message -> message.startsWith("Rate limiter ready")).hasSize(1);
        }
    }
}
