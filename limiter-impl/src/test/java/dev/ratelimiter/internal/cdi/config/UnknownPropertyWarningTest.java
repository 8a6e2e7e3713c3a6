package dev.ratelimiter.internal.cdi.config;

import dev.ratelimiter.testing.LogCapture;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/** A typo in a {@code ratelimiter.*} property is logged at startup, naming the nearest known property. */
class UnknownPropertyWarningTest {

    private LogCapture log;

    @BeforeEach
    void listen() {
        log = LogCapture.of(LimiterConfiguration.class);
    }

    @AfterEach
    void stopListening() {
        log.close();
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

        assertThat(log.records(Level.ALL)).hasSize(1);
        assertThat(log.records(Level.ALL)).singleElement().satisfies(record -> {
            assertThat(record.getLevel()).isEqualTo(Level.WARNING);
            assertThat(record.getMessage()).isEqualTo("Unknown property ratelimiter.buckets.login.limt is ignored; "
                    + "did you mean ratelimiter.buckets.login.limit?");
        });
        assertThat(configuration.settings().buckets()).containsOnlyKeys("api-anonymous", "api-authenticated");
    }
}
