package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.cdi.call.RequestAttributes;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.RequestContextController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Keys of different sources never share a counter (docs/guide.md#keys-and-privacy): a user whose login name is
 * {@code 127.0.0.1} and an anonymous caller from 127.0.0.1, in a bucket keyed by default (principal, else address),
 * count apart, both ways; an application's own keys (a {@code @RateLimitKey} parameter, {@code RateLimits}) stay one
 * namespace, so a reset by login still clears what the annotation counted.
 */
class KeyNamespacesCdiTest {

    private CdiContainer cdi;

    @BeforeEach
    void start() {
        cdi = CdiContainer.start(Map.of(
                "ratelimiter.buckets.mixed.limit", "2",
                "ratelimiter.buckets.mixed.window", "PT1M",
                "ratelimiter.buckets.login.limit", "2",
                "ratelimiter.buckets.login.window", "PT1M"), MixedService.class);
    }

    @AfterEach
    void stop() {
        cdi.close();
    }

    @Test
    @DisplayName("a user named 127.0.0.1 spends the bucket: an anonymous caller from 127.0.0.1 is still allowed")
    void principalDoesNotLockOutAddress() {
        assertThat(callsAllowed("127.0.0.1", "198.51.100.1", 3)).as("the user").isEqualTo(2);
        assertThat(callsAllowed(null, "127.0.0.1", 3)).as("the anonymous caller").isEqualTo(2);
    }

    @Test
    @DisplayName("an anonymous caller from 203.0.113.5 spends the bucket: the account named 203.0.113.5 is still allowed")
    void addressDoesNotLockOutPrincipal() {
        assertThat(callsAllowed(null, "203.0.113.5", 3)).as("the anonymous caller").isEqualTo(2);
        assertThat(callsAllowed("203.0.113.5", "198.51.100.2", 3)).as("the user").isEqualTo(2);
    }

    @Test
    @DisplayName("an application's keys share one namespace: RateLimits.reset by login clears the annotation's "
            + "counter, and RateLimits.consume counts in it")
    void applicationKeysMeet() {
        MixedService service = cdi.select(MixedService.class);
        RateLimits limits = cdi.select(RateLimits.class);
        service.login(" Alice@Example.com");
        service.login("alice@example.com");
        assertThatThrownBy(() -> service.login("ALICE@example.com")).isInstanceOf(RateLimitExceededException.class);

        limits.reset("login", "alice@example.com", KeyNormalization.LOGIN);
        assertThat(limits.consume("login", "alice@example.com", KeyNormalization.LOGIN).outcome())
                .isEqualTo(Outcome.ALLOWED);
        service.login("alice@example.com");
        assertThatThrownBy(() -> service.login("alice@example.com")).isInstanceOf(RateLimitExceededException.class);
    }

    /** How many of {@code calls} calls of the default-keyed method are allowed, each in a request of its own. */
    private int callsAllowed(String principal, String address, int calls) {
        MixedService service = cdi.select(MixedService.class);
        RequestContextController request = cdi.select(RequestContextController.class);
        int allowed = 0;
        for (int i = 0; i < calls; i++) {
            request.activate();
            try {
                cdi.select(RequestIdentity.class).resolve(principal, address, RequestAttributes.NONE);
                service.mixed();
                allowed++;
            } catch (RateLimitExceededException e) {
                // refused: counted below by its absence
            } finally {
                request.deactivate();
            }
        }
        return allowed;
    }

    @ApplicationScoped
    public static class MixedService {

        /** Keyed by default: the principal when authenticated, else the client address. */
        @RateLimited(bucket = "mixed")
        public void mixed() {
        }

        @RateLimited(bucket = "login")
        public void login(@RateLimitKey(normalize = KeyNormalization.LOGIN) String login) {
        }
    }
}
