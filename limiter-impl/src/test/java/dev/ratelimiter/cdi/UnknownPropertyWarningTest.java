package dev.ratelimiter.cdi;

import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/** A typo in a {@code ratelimiter.*} property is logged at startup, naming the nearest known property. */
class UnknownPropertyWarningTest {

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Logger logger = Logger.getLogger(LimiterConfiguration.class.getName());
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
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
    @DisplayName("ratelimiter.buckets.login.limt in properties: a WARNING naming ratelimiter.buckets.login.limit; "
            + "an environment variable with the same typo is not checked")
    void typoWarned() {
        LimiterConfiguration configuration = new LimiterConfiguration();
        configuration.config = new SmallRyeConfigBuilder().withSources(
                new PropertiesConfigSource(Map.of(
                        "ratelimiter.buckets.api-authenticated.limit", "600",
                        "ratelimiter.buckets.api-authenticated.window", "PT1M",
                        "ratelimiter.buckets.api-anonymous.limit", "120",
                        "ratelimiter.buckets.api-anonymous.window", "PT1M",
                        "ratelimiter.buckets.login.limt", "5"), "test", 100),
                new EnvConfigSource(Map.of("RATELIMITER_BUCKETS_SEARCH_LIMT", "5"), 300)).build();

        configuration.read();

        assertThat(records).extracting(LogRecord::getMessage).hasSize(1);
        assertThat(records).singleElement().satisfies(record -> {
            assertThat(record.getLevel()).isEqualTo(Level.WARNING);
            assertThat(record.getMessage()).isEqualTo("Unknown property ratelimiter.buckets.login.limt is ignored; "
                    + "did you mean ratelimiter.buckets.login.limit?");
        });
        assertThat(configuration.settings().buckets()).containsOnlyKeys("api-anonymous", "api-authenticated");
    }
}
