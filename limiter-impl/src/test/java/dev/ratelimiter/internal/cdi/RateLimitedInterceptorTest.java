package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimiterUnavailableException;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.cdi.interceptor.UnfilteredRequestWarner;
import dev.ratelimiter.internal.core.key.KeyHasher;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.testing.LogCapture;
import jakarta.enterprise.context.control.RequestContextController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The CDI layer in a real CDI container (Weld SE): interceptor, facade, events, kill switch, validation. */
class RateLimitedInterceptorTest {

    private CdiContainer cdi;

    private static Map<String, String> config(String... more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.login.limit", "3",
                "ratelimiter.buckets.login.window", "PT15M",
                "ratelimiter.buckets.search.limit", "2",
                "ratelimiter.buckets.search.window", "PT1M"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        return properties;
    }

    private void start(Map<String, String> properties, Class<?>... beans) {
        cdi = CdiContainer.start(properties, beans);
    }

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @Test
    @DisplayName("the 4th call with one login is refused before the method runs, and a denial event carries the hashed key")
    void refusesPastTheLimit() {
        start(config(), GuardedService.class, DenialRecorder.class);
        GuardedService service = cdi.select(GuardedService.class);
        String login = "user-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            assertThat(service.login(login)).isEqualTo("ok");
        }

        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.login(login))
                .satisfies(e -> {
                    assertThat(e.bucket().name()).isEqualTo("login");
                    assertThat(e.verdict().outcome()).isEqualTo(Outcome.DENIED);
                    assertThat(e.verdict().retryAfterSeconds()).isEqualTo(900);
                });
        assertThat(service.runs()).isEqualTo(3);
        RateLimitDenied denied = cdi.select(DenialRecorder.class).denials().get(0);
        assertThat(denied.bucket().name()).isEqualTo("login");
        assertThat(denied.hashedKey()).hasSize(43).doesNotContain("user");
        // in memory the counter's key is the process's own SipHash; the event's stays SHA-256 (no secret set)
        assertThat(denied.hashedKey()).isEqualTo(new KeyHasher(Optional.empty()).hash(KeyNamespace.APPLICATION, login));
    }

    @Test
    @DisplayName("logins are normalized: ' ALICE ', 'alice' and full-width 'ＡＬＩＣＥ' share one counter; RateLimits resets it with the raw login")
    void loginNormalizationAndReset() {
        start(config(), GuardedService.class);
        GuardedService service = cdi.select(GuardedService.class);
        service.login(" ALICE ");
        service.login("alice");
        service.login("\uFF21\uFF2C\uFF29\uFF23\uFF25");
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.login("Alice"));

        cdi.select(RateLimits.class).reset("login", "ALICE", KeyNormalization.LOGIN);

        assertThat(service.login("alice")).isEqualTo("ok");
    }

    @Test
    @DisplayName("without @RateLimitKey and outside an HTTP request the call fails with a message naming the method")
    void noKeyOutsideRequest() {
        start(config(), GuardedService.class);
        GuardedService service = cdi.select(GuardedService.class);
        assertThatIllegalStateException().isThrownBy(() -> service.search("q"))
                .withMessageContaining(GuardedService.class.getName() + "#search(String)")
                .withMessageContaining("@RateLimitKey");
        assertThat(service.runs()).isEqualTo(0);
    }

    @Test
    @DisplayName("without @RateLimitKey inside a request the principal is the key, else the client address")
    void keyFromRequestIdentity() {
        start(config(), GuardedService.class);
        GuardedService service = cdi.select(GuardedService.class);
        RequestContextController request = cdi.select(RequestContextController.class);
        String principal = "carol-" + UUID.randomUUID();

        for (int i = 0; i < 2; i++) {
            request.activate();
            cdi.select(RequestIdentity.class).resolve(principal, "198.51.100." + i);
            assertThat(service.search("q")).isEqualTo("found");
            request.deactivate();
        }
        request.activate();
        cdi.select(RequestIdentity.class).resolve(principal, "198.51.100.7");
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.search("q"));
        assertThat(cdi.select(RequestIdentity.class).applied().all()).singleElement()
                .satisfies(applied -> assertThat(applied.verdict().outcome()).isEqualTo(Outcome.DENIED));
        request.deactivate();

        request.activate();
        cdi.select(RequestIdentity.class).resolve(null, "198.51.100.7");
        assertThat(service.search("q")).as("anonymous, keyed by address").isEqualTo("found");
        request.deactivate();
    }

    @Test
    @DisplayName("in a request the JAX-RS filter did not see, a call keyed by identity fails naming RateLimiterFeature, logged once as an error")
    void requestNotFiltered() {
        start(config(), GuardedService.class);
        GuardedService service = cdi.select(GuardedService.class);
        RequestContextController request = cdi.select(RequestContextController.class);
        List<LogRecord> errors;
        try (LogCapture log = LogCapture.of(UnfilteredRequestWarner.class)) {
            for (int i = 0; i < 2; i++) {
                request.activate();
                assertThatIllegalStateException().isThrownBy(() -> service.search("q"))
                        .withMessageContaining("dev.ratelimiter.jaxrs.RateLimiterFeature")
                        .withMessageContaining(GuardedService.class.getName() + "#search(String)");
                request.deactivate();
            }
            errors = log.records(Level.SEVERE);
        }
        assertThat(errors).singleElement().satisfies(record ->
                assertThat(record.getMessage()).contains("dev.ratelimiter.jaxrs.RateLimiterFeature"));
        assertThat(service.runs()).isZero();
    }

    @Test
    @DisplayName("a fail-closed bucket whose limiter cannot decide (key cap reached) throws RateLimiterUnavailableException")
    void failClosedAtCap() {
        start(config("ratelimiter.memory.max-keys", "1", "ratelimiter.buckets.login.on-outage", "fail-closed"),
                GuardedService.class);
        GuardedService service = cdi.select(GuardedService.class);
        service.login("first");
        assertThatExceptionOfType(RateLimiterUnavailableException.class).isThrownBy(() -> service.login("second"))
                .satisfies(e -> assertThat(e.bucket().name()).isEqualTo("login"));
        assertThat(service.runs()).isEqualTo(1);
    }

    @Test
    @DisplayName("the produced InstantSource drives the windows: an application's alternative clock replaces it")
    void clockReplaceable() {
        start(config(), GuardedService.class);
        GuardedService service = cdi.select(GuardedService.class);
        String login = "dave-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            service.login(login);
        }
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.login(login));
        CdiContainer.CLOCK.advance(Duration.ofMinutes(15));
        assertThat(service.login(login)).isEqualTo("ok");
    }

    @Test
    @DisplayName("ratelimiter.enabled=false: nothing is refused or counted")
    void killSwitch() {
        start(config("ratelimiter.enabled", "false"), GuardedService.class);
        GuardedService service = cdi.select(GuardedService.class);
        for (int i = 0; i < 10; i++) {
            assertThat(service.login("eve")).isEqualTo("ok");
        }
        assertThat(cdi.select(RateLimits.class).consume("login", "eve").remaining()).isEqualTo(3);
    }

    @Test
    @DisplayName("an unknown bucket on a bean method fails the container's startup, naming the method and the properties")
    void unknownBucketFailsStartup() {
        assertThatThrownBy(() -> start(config(), MisconfiguredBean.class))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(MisconfiguredBean.class.getName() + "#call()")
                .hasMessageContaining("ratelimiter.buckets.unknown-bucket.limit");
    }

    @Test
    @DisplayName("a bad property fails the container's startup with the property's name, not a container wrapper")
    void badPropertyFailsStartup() {
        assertThatThrownBy(() -> start(config("ratelimiter.buckets.search.window", "PT0.5S")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.buckets.search.window: 'PT0.5S'");
    }

    @Test
    @DisplayName("RateLimits.consume of an unknown bucket names the properties to set")
    void facadeUnknownBucket() {
        start(config());
        assertThatThrownBy(() -> cdi.select(RateLimits.class).consume("nope", "k"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ratelimiter.buckets.nope.limit");
    }
}
