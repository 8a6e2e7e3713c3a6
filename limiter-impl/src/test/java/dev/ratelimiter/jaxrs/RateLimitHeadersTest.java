package dev.ratelimiter.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.cdi.AppliedLimits.Applied;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitHeadersTest {

    private final Applied anonymous = new Applied(new Bucket("api-anonymous", 120, Duration.ofMinutes(1)),
            Verdict.allowed(120, 119, Duration.ofSeconds(60)));
    private final Applied login = new Applied(new Bucket("login", 5, Duration.ofMinutes(15)),
            Verdict.denied(5, Duration.ofMillis(899_100)));

    @Test
    @DisplayName("one policy: draft-ietf-httpapi-ratelimit-headers-10 items with q, w and r, t")
    void onePolicy() {
        assertThat(RateLimitHeaders.policy(List.of(anonymous))).isEqualTo("\"api-anonymous\";q=120;w=60");
        assertThat(RateLimitHeaders.rateLimit(List.of(anonymous))).isEqualTo("\"api-anonymous\";r=119;t=60");
    }

    @Test
    @DisplayName("several policies form one list, in the order they were consulted; t rounds up")
    void severalPolicies() {
        assertThat(RateLimitHeaders.policy(List.of(anonymous, login)))
                .isEqualTo("\"api-anonymous\";q=120;w=60, \"login\";q=5;w=900");
        assertThat(RateLimitHeaders.rateLimit(List.of(anonymous, login)))
                .isEqualTo("\"api-anonymous\";r=119;t=60, \"login\";r=0;t=900");
    }
}
