package dev.ratelimiter.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.RateLimiterMetrics;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;

import static org.assertj.core.api.Assertions.assertThat;

class ScriptArgumentsTest {

    private static final Bucket BUCKET = new Bucket("login", 5, Duration.ofMinutes(2));

    @Test
    @DisplayName("the bytes sent are the UTF-8 of the counter key the store documents, for ASCII and other keys")
    void counterKeyBytes() {
        for (String prefix : new String[] {"rl:", "r\u00e9seau:"}) {
            ValkeyRateLimiter limiter = new ValkeyRateLimiter(() -> {
                throw new UnsupportedOperationException("layout only");
            }, prefix, new BackendMonitor(Backend.VALKEY, InstantSource.system(), RateLimiterMetrics.NONE),
                    RateLimiterMetrics.NONE);
            ScriptArguments.OfBucket arguments = new ScriptArguments(prefix).of(BUCKET);
            for (String key : new String[] {"W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM", "", "j\u00f6rg", "\u4e2d"}) {
                assertThat(new String(arguments.counterKey(key), StandardCharsets.UTF_8))
                        .isEqualTo(limiter.counterKey(BUCKET, key));
            }
            assertThat(new String(arguments.window(), StandardCharsets.US_ASCII)).isEqualTo("120000");
        }
    }
}
