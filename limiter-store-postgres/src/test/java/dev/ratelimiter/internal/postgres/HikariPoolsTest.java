package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.ConfigurationException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The library's own pool is built at startup, without the database, or fails the start naming the property. */
class HikariPoolsTest {

    private static PostgresSettings settings(String url) {
        return new PostgresSettings(Optional.empty(), Optional.of(url), Optional.of("app"), Optional.of("s3cret"),
                "rate_limit_counters", Duration.ofMillis(100), Duration.ofMinutes(5), 4, false);
    }

    @Test
    @DisplayName("a URL to a port where no database listens: the pool is built all the same (the breaker decides)")
    void builtWithoutTheDatabase() {
        DataSource pool = HikariPools.create(settings("jdbc:postgresql://127.0.0.1:1/test"));
        assertThat(pool).isNotNull();
        HikariPools.close(pool);
    }

    @Test
    @DisplayName("a URL the driver refuses fails the start naming ratelimiter.postgres.url, without the password")
    void refusedUrlNamesTheProperty() {
        assertThatThrownBy(() -> HikariPools.create(settings("jdbc:postgresql://db:notaport/app?password=s3cret")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.postgres.url:")
                .hasMessageNotContaining("s3cret");
    }
}
