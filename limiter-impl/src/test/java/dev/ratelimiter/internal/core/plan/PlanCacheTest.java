package dev.ratelimiter.internal.core.plan;

import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class PlanCacheTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-03T10:00:00Z"));

    @Test
    @DisplayName("an answer is reused until its ttl has passed, then it is gone")
    void answerExpires() {
        PlanCache<String> cache = new PlanCache<>(60_000, 10, clock);
        cache.put(KeyNamespace.APPLICATION, "acme", "pro");
        clock.advance(Duration.ofSeconds(59));
        assertThat(cache.get(KeyNamespace.APPLICATION, "acme")).isEqualTo("pro");
        clock.advance(Duration.ofSeconds(1));
        assertThat(cache.get(KeyNamespace.APPLICATION, "acme")).isNull();
    }

    @Test
    @DisplayName("the same text keyed by a principal and by the application is two keys")
    void namespacesApart() {
        PlanCache<String> cache = new PlanCache<>(60_000, 10, clock);
        cache.put(KeyNamespace.PRINCIPAL, "acme", "pro");
        assertThat(cache.get(KeyNamespace.APPLICATION, "acme")).isNull();
        assertThat(cache.get(KeyNamespace.PRINCIPAL, "acme")).isEqualTo("pro");
    }

    @Test
    @DisplayName("full, it drops the oldest answers first and never holds more than its bound")
    void boundedOldestFirst() {
        PlanCache<String> cache = new PlanCache<>(60_000, 3, clock);
        for (int i = 0; i < 10; i++) {
            cache.put(KeyNamespace.APPLICATION, "tenant-" + i, "plan-" + i);
            clock.advance(Duration.ofMillis(1));
            assertThat(cache.size()).isLessThanOrEqualTo(3);
        }
        assertThat(cache.get(KeyNamespace.APPLICATION, "tenant-6")).isNull();
        assertThat(cache.get(KeyNamespace.APPLICATION, "tenant-7")).isEqualTo("plan-7");
        assertThat(cache.get(KeyNamespace.APPLICATION, "tenant-9")).isEqualTo("plan-9");
    }

    @Test
    @DisplayName("a key answered again keeps one entry, and its newer answer survives the older one's turn to go")
    void replacedAnswerKeepsKey() {
        PlanCache<String> cache = new PlanCache<>(1_000, 2, clock);
        cache.put(KeyNamespace.APPLICATION, "acme", "free");
        clock.advance(Duration.ofSeconds(1)); // expired
        cache.put(KeyNamespace.APPLICATION, "acme", "pro");
        cache.put(KeyNamespace.APPLICATION, "globex", "free");
        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.get(KeyNamespace.APPLICATION, "acme")).isEqualTo("pro");
    }

    @Test
    @DisplayName("expired answers are dropped as new ones come, so keys answered once do not pile up")
    void expiredDropped() {
        PlanCache<String> cache = new PlanCache<>(1_000, 1_000, clock);
        for (int i = 0; i < 100; i++) {
            cache.put(KeyNamespace.APPLICATION, "tenant-" + i, "free");
            clock.advance(Duration.ofMillis(100));
        }
        assertThat(cache.size()).isLessThanOrEqualTo(11);
    }
}
