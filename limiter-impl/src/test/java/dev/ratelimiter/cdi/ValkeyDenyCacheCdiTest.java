package dev.ratelimiter.cdi;

import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.testing.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.JedisPooled;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A refusal answered from memory takes the same path as any decision (the denial event, the time left), without
 * reaching the store.
 */
class ValkeyDenyCacheCdiTest {

    private static final String PREFIX = "rl-deny-cache-test:";

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @Test
    @DisplayName("refusals from memory fire the denial event with the window's time left, like the store's own")
    void refusalFromMemoryIsADecision() {
        cdi = CdiContainer.start(Map.of(
                "ratelimiter.backend", "valkey",
                "ratelimiter.valkey.url", TestServers.valkeyUrl(),
                "ratelimiter.valkey.key-prefix", PREFIX,
                "ratelimiter.deny-cache.max-age", "PT1M",
                "ratelimiter.buckets.login.limit", "1",
                "ratelimiter.buckets.login.window", "PT1M"), DenialRecorder.class);
        RateLimits limits = cdi.select(RateLimits.class);
        String user = UUID.randomUUID().toString();
        limits.consume("login", user);

        Verdict fromStore = limits.consume("login", user);
        Verdict fromMemory = limits.consume("login", user);

        assertThat(List.of(fromStore.outcome(), fromMemory.outcome())).containsOnly(Outcome.DENIED);
        assertThat(fromMemory.resetAfter()).isPositive().isLessThanOrEqualTo(fromStore.resetAfter());
        assertThat(fromMemory.retryAfterSeconds()).isBetween(1L, 60L);
        List<RateLimitDenied> denials = cdi.select(DenialRecorder.class).denials();
        assertThat(denials).hasSize(2);
        assertThat(denials.get(1).verdict()).isEqualTo(fromMemory);
        try (JedisPooled valkey = new JedisPooled(URI.create(TestServers.valkeyUrl()))) {
            assertThat(valkey.get(PREFIX + "{login:" + denials.get(1).hashedKey() + "}"))
                    .as("attempts the store counted: the third was answered from memory").isEqualTo("2");
        }
    }

    @Test
    @DisplayName("a shadow bucket's refusal answered from memory still lets the call go on, with no denial event")
    void shadowBucketNotRefusedFromMemory() {
        String prefix = "rl-deny-cache-shadow-test-" + UUID.randomUUID() + ":"; // its only key is found by pattern
        cdi = CdiContainer.start(Map.of(
                "ratelimiter.backend", "valkey",
                "ratelimiter.valkey.url", TestServers.valkeyUrl(),
                "ratelimiter.valkey.key-prefix", prefix,
                "ratelimiter.deny-cache.max-age", "PT1M",
                "ratelimiter.buckets.login.limit", "1",
                "ratelimiter.buckets.login.window", "PT1M",
                "ratelimiter.buckets.login.mode", "shadow"), DenialRecorder.class);
        RateLimits limits = cdi.select(RateLimits.class);
        String user = UUID.randomUUID().toString();
        limits.consume("login", user);

        Verdict fromStore = limits.consume("login", user);
        Verdict fromMemory = limits.consume("login", user);

        assertThat(List.of(fromStore, fromMemory)).allSatisfy(verdict -> {
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(verdict.remaining()).isZero();
            assertThat(verdict.retryAfterSeconds()).isBetween(1L, 60L);
        });
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();
        try (JedisPooled valkey = new JedisPooled(URI.create(TestServers.valkeyUrl()))) {
            assertThat(valkey.keys(prefix + "{login:*")).singleElement().satisfies(key ->
                    assertThat(valkey.get(key)).as("attempts the store counted: the third was answered from memory, "
                            + "as for an enforced bucket").isEqualTo("2"));
        }
    }
}
