package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.testing.TestServers;
import jakarta.enterprise.context.ApplicationScoped;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.JedisPooled;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
        String counter = PREFIX + "{login:" + cdi.select(DenialRecorder.class).denials().get(0).hashedKey() + "}";
        try (JedisPooled valkey = new JedisPooled(URI.create(TestServers.valkeyUrl()))) {
            // As a reset on another replica would: the store would now allow the key, so a refusal comes from memory.
            assertThat(valkey.del(counter)).as("the store's counter").isEqualTo(1);
        }
        Verdict fromMemory = limits.consume("login", user);

        assertThat(List.of(fromStore.outcome(), fromMemory.outcome())).containsOnly(Outcome.DENIED);
        assertThat(fromMemory.resetAfter()).isPositive().isLessThanOrEqualTo(fromStore.resetAfter());
        assertThat(fromMemory.retryAfterSeconds()).isBetween(1L, 60L);
        List<RateLimitDenied> denials = cdi.select(DenialRecorder.class).denials();
        assertThat(denials).hasSize(2);
        assertThat(denials.get(1).verdict()).isEqualTo(fromMemory);
        try (JedisPooled valkey = new JedisPooled(URI.create(TestServers.valkeyUrl()))) {
            assertThat(valkey.exists(counter)).as("the third attempt did not reach the store").isFalse();
        }
    }

    /** Two buckets keyed by one parameter, decided in this order. */
    @ApplicationScoped
    public static class TwoBuckets {
        @RateLimited(bucket = "first", key = RateLimited.Key.PARAMETER)
        @RateLimited(bucket = "second", key = RateLimited.Key.PARAMETER)
        public String call(@RateLimitKey String key) {
            return "ok";
        }
    }

    @Test
    @DisplayName("a refusal from memory for the first of two buckets stops the call before the second, as the store's own refusal does")
    void cachedRefusalStopsLaterBuckets() {
        cdi = CdiContainer.start(Map.of(
                "ratelimiter.backend", "valkey",
                "ratelimiter.valkey.url", TestServers.valkeyUrl(),
                "ratelimiter.valkey.key-prefix", PREFIX,
                "ratelimiter.deny-cache.max-age", "PT1M",
                "ratelimiter.buckets.first.limit", "1",
                "ratelimiter.buckets.first.window", "PT1M",
                "ratelimiter.buckets.second.limit", "10",
                "ratelimiter.buckets.second.window", "PT1M"), DenialRecorder.class, TwoBuckets.class);
        TwoBuckets service = cdi.select(TwoBuckets.class);
        String key = UUID.randomUUID().toString();
        assertThat(service.call(key)).isEqualTo("ok");

        for (int i = 0; i < 3; i++) {
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.call(key))
                    .satisfies(e -> assertThat(e.bucket().name()).isEqualTo("first"));
        }

        String hashed = cdi.select(DenialRecorder.class).denials().get(0).hashedKey();
        try (JedisPooled valkey = new JedisPooled(URI.create(TestServers.valkeyUrl()))) {
            assertThat(valkey.get(PREFIX + "{first:" + hashed + "}"))
                    .as("the first bucket's store count: refused calls count nothing").isEqualTo("1");
            assertThat(valkey.get(PREFIX + "{second:" + hashed + "}"))
                    .as("the second bucket counted only the allowed call").isEqualTo("1");
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
                    assertThat(valkey.get(key)).as("attempts the store counted: only the allowed one (a refusal "
                            + "counts nothing)").isEqualTo("1"));
        }
    }
}
