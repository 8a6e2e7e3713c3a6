package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimits;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.testing.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup warning of a missing {@code ratelimiter.key-secret} says what is true of the store in use
 * (docs/guide.md#keys-and-privacy): in memory the counters are under a keyed hash of the process's own and only the
 * denial event's key is unkeyed; a shared store receives the unkeyed hash itself.
 */
class KeySecretWarningCdiTest {

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @Test
    @DisplayName("in memory: the counters' keyed hash is named, and the denial event's plain SHA-256 is the warning")
    void inMemory() {
        List<String> warnings = warningsStarting(Map.of());
        assertThat(warnings).singleElement().satisfies(warning -> assertThat(warning)
                .startsWith("ratelimiter.key-secret is not set: the in-memory store counts under a keyed hash of its "
                        + "own")
                .contains("RateLimitDenied event carries is plain SHA-256")
                .doesNotContain("keys reach"));
    }

    @Test
    @DisplayName("on a shared store: the store, named, receives keys hashed with plain SHA-256")
    void sharedStore() {
        List<String> warnings = warningsStarting(Map.of("ratelimiter.backend", MapStoreProvider.NAME));
        assertThat(warnings).singleElement().satisfies(warning -> assertThat(warning)
                .startsWith("ratelimiter.key-secret is not set: keys reach the " + MapStoreProvider.NAME
                        + " store hashed with plain SHA-256"));
    }

    @Test
    @DisplayName("with a secret, or with the limiter off: no warning")
    void noWarning() {
        assertThat(warningsStarting(Map.of("ratelimiter.key-secret", "a-test-secret-of-enough-length"))).isEmpty();
        assertThat(warningsStarting(Map.of("ratelimiter.enabled", "false"))).isEmpty();
    }

    /** The limiter's key-secret warnings as it starts with {@code more} set. */
    private List<String> warningsStarting(Map<String, String> more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.login.limit", "3",
                "ratelimiter.buckets.login.window", "PT15M"));
        properties.putAll(more);
        try (LogCapture log = LogCapture.of(LimiterRuntime.class)) {
            cdi = CdiContainer.start(properties);
            cdi.select(RateLimits.class).consume("login", "alice");
            cdi.close();
            cdi = null;
            return log.messages(Level.WARNING).stream()
                    .filter(message -> message.startsWith("ratelimiter.key-secret")).toList();
        }
    }
}
