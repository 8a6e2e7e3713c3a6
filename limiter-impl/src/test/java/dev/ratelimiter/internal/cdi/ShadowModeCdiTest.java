package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.core.chain.ShadowMode;
import dev.ratelimiter.internal.health.RateLimiterReadinessCheck;
import dev.ratelimiter.testing.LogCapture;
import jakarta.enterprise.context.control.RequestContextController;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shadow mode through the CDI layer (Weld SE): the interceptor and the {@link RateLimits} facade take the decider's
 * path, so a shadow bucket's refusal lets the call go on, fires no denial event and is logged with the hashed key.
 */
class ShadowModeCdiTest {

    private CdiContainer cdi;

    private void start(String... more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.login.limit", "3",
                "ratelimiter.buckets.login.window", "PT15M",
                "ratelimiter.buckets.login.mode", "shadow",
                "ratelimiter.buckets.search.limit", "2",
                "ratelimiter.buckets.search.window", "PT1M"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        cdi = CdiContainer.start(properties, GuardedService.class, DenialRecorder.class,
                RateLimiterReadinessCheck.class);
    }

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @Test
    @DisplayName("a @RateLimited method of a shadow bucket runs past the limit, fires no denial event, and records remaining 0 for the headers")
    void interceptedCallsGoOn() {
        start();
        GuardedService service = cdi.select(GuardedService.class);
        String login = "user-" + UUID.randomUUID();
        RequestContextController request = cdi.select(RequestContextController.class);
        request.activate();
        try {
            for (int i = 0; i < 5; i++) {
                assertThat(service.login(login)).as("call %d", i + 1).isEqualTo("ok");
            }
            assertThat(cdi.select(RequestIdentity.class).applied().all()).singleElement().satisfies(applied -> {
                assertThat(applied.bucket().name()).isEqualTo("login");
                assertThat(applied.verdict().outcome()).isEqualTo(Outcome.ALLOWED);
                assertThat(applied.verdict().remaining()).isZero();
                assertThat(applied.verdict().resetAfter()).isEqualTo(Duration.ofMinutes(15));
            });
        } finally {
            request.deactivate();
        }
        assertThat(service.runs()).isEqualTo(5);
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();
    }

    @Test
    @DisplayName("RateLimits.consume of a shadow bucket counts every attempt and answers ALLOWED with remaining 0 past the limit")
    void facadeVerdict() {
        start();
        RateLimits limits = cdi.select(RateLimits.class);
        String login = "user-" + UUID.randomUUID();
        List<Verdict> verdicts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            verdicts.add(limits.consume("login", login));
        }
        assertThat(verdicts).extracting(Verdict::outcome).containsOnly(Outcome.ALLOWED);
        assertThat(verdicts).extracting(Verdict::remaining).containsExactly(2L, 1L, 0L, 0L, 0L);
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();

        for (int i = 0; i < 2; i++) {
            limits.consume("search", login);
        }
        assertThat(limits.consume("search", login).outcome()).as("an enforced bucket beside it")
                .isEqualTo(Outcome.DENIED);
        assertThat(cdi.select(DenialRecorder.class).denials()).singleElement()
                .satisfies(denied -> assertThat(denied.bucket().name()).isEqualTo("search"));

        limits.reset("login", login);
        assertThat(limits.consume("login", login).remaining()).as("a reset works as for any bucket").isEqualTo(2);
    }

    @Test
    @DisplayName("token buckets: a shadow token bucket lets every call through and fires no event; an enforced one refuses, fires the denial event, and a reset fills it")
    void tokenBuckets() {
        start("ratelimiter.buckets.login.algorithm", "token-bucket",
                "ratelimiter.buckets.search.algorithm", "token-bucket",
                "ratelimiter.buckets.search.burst", "1");
        RateLimits limits = cdi.select(RateLimits.class);
        String login = "user-" + UUID.randomUUID();
        List<Verdict> verdicts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            verdicts.add(limits.consume("login", login));
        }
        assertThat(verdicts).extracting(Verdict::outcome).containsOnly(Outcome.ALLOWED);
        assertThat(verdicts).extracting(Verdict::remaining).containsExactly(2L, 1L, 0L, 0L, 0L);
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();

        assertThat(limits.consume("search", login).isAllowed()).isTrue();
        Verdict refused = limits.consume("search", login);
        assertThat(refused.outcome()).as("a burst of 1: the next call waits 30 s").isEqualTo(Outcome.DENIED);
        assertThat(refused.retryAfterSeconds()).isEqualTo(30);
        assertThat(cdi.select(DenialRecorder.class).denials()).singleElement()
                .satisfies(denied -> assertThat(denied.bucket().isTokenBucket()).isTrue());
        limits.reset("search", login);
        assertThat(limits.consume("search", login).isAllowed()).isTrue();
    }

    @Test
    @DisplayName("a would-be refusal is logged once per key and window with the hashed key, never the raw key")
    void loggedWithHashedKey() {
        start("ratelimiter.key-secret", "a-test-secret-of-enough-length");
        RateLimits limits = cdi.select(RateLimits.class);
        String login = "carol-" + UUID.randomUUID();
        try (LogCapture log = LogCapture.of(ShadowMode.class)) {
            for (int i = 0; i < 6; i++) {
                limits.consume("login", login);
            }
            assertThat(log.messages(Level.INFO)).singleElement().satisfies(message -> {
                assertThat(message).contains("bucket 'login' would refuse key ").doesNotContain(login)
                        .doesNotContain("carol");
                // the key the in-memory store counts under: SipHash-2-4 under the process's own random key
                assertThat(message).containsPattern("key [0-9a-f]{16} ");
            });
        }
    }

    @Test
    @DisplayName("a fail-closed shadow bucket whose limiter cannot decide (key cap reached) lets the call go on")
    void failClosedShadowGoesOn() {
        start("ratelimiter.memory.max-keys", "1", "ratelimiter.buckets.login.on-outage", "fail-closed");
        GuardedService service = cdi.select(GuardedService.class);
        service.login("first");
        assertThat(service.login("second")).isEqualTo("ok");
        assertThat(service.runs()).isEqualTo(2);
    }

    @Test
    @DisplayName("readiness lists the buckets in shadow mode")
    void readinessListsShadowBuckets() {
        start("ratelimiter.buckets.search.mode", "shadow");
        HealthCheckResponse health = cdi.select(RateLimiterReadinessCheck.class, Readiness.Literal.INSTANCE).call();
        assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(health.getData()).hasValueSatisfying(data ->
                assertThat(data).containsEntry("shadowBuckets", "login,search"));
    }

    @Test
    @DisplayName("without a shadow bucket readiness has no shadowBuckets entry")
    void readinessWithoutShadowBuckets() {
        start("ratelimiter.buckets.login.mode", "enforce");
        HealthCheckResponse health = cdi.select(RateLimiterReadinessCheck.class, Readiness.Literal.INSTANCE).call();
        assertThat(health.getData()).hasValueSatisfying(data -> assertThat(data).doesNotContainKey("shadowBuckets")
                .containsEntry("state", "ok"));
    }
}
