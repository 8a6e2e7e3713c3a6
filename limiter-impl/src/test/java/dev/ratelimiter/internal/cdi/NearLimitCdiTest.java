package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitNearLimit;
import dev.ratelimiter.RateLimits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near-limit count and event through the library's CDI start (docs/guide.md#near-the-limit): the decision that
 * takes a key below the share fires {@code RateLimitNearLimit} once, every decision below it counts.
 */
class NearLimitCdiTest {

    /** Observes the event, as an application that warns its customers would. */
    @ApplicationScoped
    public static class Warnings {
        private final List<RateLimitNearLimit> seen = new CopyOnWriteArrayList<>();

        void onNearLimit(@Observes RateLimitNearLimit near) {
            seen.add(near);
        }

        List<RateLimitNearLimit> seen() {
            return List.copyOf(seen);
        }
    }

    private CdiContainer cdi;

    private RateLimits start(String percent) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.exports.limit", "10",
                "ratelimiter.buckets.exports.window", "PT1M",
                "ratelimiter.buckets.trial.limit", "10",
                "ratelimiter.buckets.trial.window", "PT1M",
                "ratelimiter.buckets.trial.mode", "shadow",
                "ratelimiter.metrics.system", "micrometer"));
        if (percent != null) {
            properties.put("ratelimiter.near-limit.percent", percent);
        }
        properties.put("ratelimiter.buckets.attempts.limit", "3");
        properties.put("ratelimiter.buckets.attempts.window", "PT15M");
        properties.put("ratelimiter.buckets.attempts.count", "failures");
        for (String other : new String[] {"plain", "typed"}) { // FailuresOnlyService's other buckets
            properties.put("ratelimiter.buckets." + other + ".limit", "2");
            properties.put("ratelimiter.buckets." + other + ".window", "PT15M");
        }
        cdi = CdiContainer.start(properties, Warnings.class, MicrometerRegistry.class, FailuresOnlyService.class);
        return cdi.select(RateLimits.class);
    }

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
        MicrometerRegistry.REGISTRY.clear();
    }

    private double nearLimitCount() {
        return MicrometerRegistry.REGISTRY.get("rate_limiter.near_limit").tag("bucket", "exports").counter().count();
    }

    @Test
    @DisplayName("20 % by default: of 10, the 9th call fires the event once, naming the window, the hashed key and 1 left; the 9th and 10th count")
    void defaultShare() {
        RateLimits limits = start(null);
        String tenant = "tenant-" + UUID.randomUUID();
        for (int i = 1; i <= 8; i++) {
            limits.consume("exports", tenant);
        }
        assertThat(cdi.select(Warnings.class).seen()).isEmpty();
        assertThat(nearLimitCount()).isZero();

        limits.consume("exports", tenant);
        limits.consume("exports", tenant);
        limits.consume("exports", tenant); // refused: counted nothing, so not near

        assertThat(cdi.select(Warnings.class).seen()).singleElement().satisfies(near -> {
            assertThat(near.bucket().name()).isEqualTo("exports");
            assertThat(near.window().window()).isEqualTo(Duration.ofMinutes(1));
            assertThat(near.limit()).isEqualTo(10);
            assertThat(near.remaining()).isEqualTo(1);
            assertThat(near.hashedKey()).doesNotContain(tenant).hasSize(43);
        });
        assertThat(nearLimitCount()).isEqualTo(2);
    }

    @Test
    @DisplayName("another key crosses on its own; 50 % moves the crossing to the 6th call")
    void perKeyAndConfigured() {
        RateLimits limits = start("50");
        String first = "tenant-" + UUID.randomUUID();
        String second = "tenant-" + UUID.randomUUID();
        for (int i = 1; i <= 6; i++) {
            limits.consume("exports", first);
            assertThat(cdi.select(Warnings.class).seen()).as("after call %d", i).hasSize(i < 6 ? 0 : 1);
        }
        limits.consume("exports", second, 6);
        assertThat(cdi.select(Warnings.class).seen()).hasSize(2);
        assertThat(cdi.select(Warnings.class).seen().get(1).remaining()).isEqualTo(4);
    }

    @Test
    @DisplayName("a bucket in shadow mode is counted near the limit but fires no event: its limit is not enforced yet")
    void shadowCountsWithoutEvent() {
        RateLimits limits = start(null);
        String tenant = "tenant-" + UUID.randomUUID();
        for (int i = 1; i <= 10; i++) {
            limits.consume("trial", tenant);
        }
        assertThat(cdi.select(Warnings.class).seen()).isEmpty();
        assertThat(MicrometerRegistry.REGISTRY.get("rate_limiter.near_limit").tag("bucket", "trial").counter().count())
                .isEqualTo(2);
    }

    @Test
    @DisplayName("a bucket that counts failures only is not watched: a success counted before it is given back never warns")
    void failuresOnlyNotWatched() {
        start(null);
        FailuresOnlyService service = cdi.select(FailuresOnlyService.class);
        String key = "k-" + UUID.randomUUID();
        for (int i = 0; i < 2; i++) {
            org.assertj.core.api.Assertions.assertThatExceptionOfType(IllegalStateException.class)
                    .isThrownBy(() -> service.attempt(key, true));
        }
        for (int i = 0; i < 3; i++) {
            assertThat(service.attempt(key, false)).isEqualTo("ok");
        }
        assertThat(cdi.select(Warnings.class).seen()).isEmpty();
        assertThat(MicrometerRegistry.REGISTRY.get("rate_limiter.near_limit").tag("bucket", "attempts").counter().count())
                .isZero();
    }

    @Test
    @DisplayName("0 turns it off: neither counted nor fired")
    void off() {
        RateLimits limits = start("0");
        String tenant = "tenant-" + UUID.randomUUID();
        for (int i = 1; i <= 10; i++) {
            limits.consume("exports", tenant);
        }
        assertThat(cdi.select(Warnings.class).seen()).isEmpty();
        assertThat(nearLimitCount()).isZero();
    }
}
