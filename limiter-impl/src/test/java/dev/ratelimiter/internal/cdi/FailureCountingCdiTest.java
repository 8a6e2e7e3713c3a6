package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.spi.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Buckets that count failures only (docs/guide.md#counting-failures-only), through the interceptor on the in-memory
 * store: a call is counted before it runs, so a spent bucket refuses before any work, and a call that succeeds is
 * given back.
 */
class FailureCountingCdiTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    private FailuresOnlyService start(String... more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.attempts.limit", "3",
                "ratelimiter.buckets.attempts.window", "PT15M",
                "ratelimiter.buckets.attempts.count", "failures",
                "ratelimiter.buckets.plain.limit", "2",
                "ratelimiter.buckets.plain.window", "PT15M",
                "ratelimiter.buckets.typed.limit", "2",
                "ratelimiter.buckets.typed.window", "PT15M",
                "ratelimiter.buckets.typed.count", "failures",
                "ratelimiter.buckets.typed.failure-exceptions", "java.lang.IllegalArgumentException"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        cdi = CdiContainer.start(properties, FailuresOnlyService.class);
        return cdi.select(FailuresOnlyService.class);
    }

    private static String key() {
        return "k-" + UUID.randomUUID();
    }

    @Test
    @DisplayName("successful calls never spend the bucket; failed ones do, and once spent even a call that would "
            + "succeed is refused before it runs")
    void successesGivenBack() {
        FailuresOnlyService service = start();
        String key = key();
        for (int i = 0; i < 10; i++) {
            assertThat(service.attempt(key, false)).isEqualTo("ok");
        }
        for (int i = 0; i < 3; i++) {
            assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> service.attempt(key, true));
        }
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.attempt(key, false));
    }

    @Test
    @DisplayName("@RateLimited(count = FAILURES) makes a bucket counting every call count failures only on that "
            + "method, and count = ALL the reverse")
    void annotationOverridesTheBucket() {
        FailuresOnlyService service = start();
        String key = key();
        for (int i = 0; i < 5; i++) {
            assertThat(service.plainFailuresOnly(key, false)).isEqualTo("ok");
        }
        String other = key();
        for (int i = 0; i < 3; i++) {
            assertThat(service.attemptCountingAll(other, false)).isEqualTo("ok");
        }
        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> service.attemptCountingAll(other, false));
    }

    @Test
    @DisplayName("failure-exceptions: only the named types (and their subclasses) are failures; any other exception "
            + "gives the call back")
    void namedExceptionTypes() {
        FailuresOnlyService service = start();
        String key = key();
        for (int i = 0; i < 5; i++) {
            assertThatExceptionOfType(IllegalStateException.class)
                    .isThrownBy(() -> service.typed(key, new IllegalStateException("not a failure here")));
        }
        assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> service.typed(key, new IllegalArgumentException("a failure")));
        assertThatExceptionOfType(NumberFormatException.class)
                .isThrownBy(() -> service.typed(key, new NumberFormatException("a subclass: a failure")));
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.typed(key, null));
    }

    @Test
    @DisplayName("several buckets on one method: the failures-only one gives a success back, the other keeps it")
    void severalBuckets() {
        FailuresOnlyService service = start();
        String key = key();
        service.both(key, false);
        service.both(key, false);
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.both(key, false))
                .satisfies(e -> assertThat(e.bucket().name()).isEqualTo("plain"));
        for (int i = 0; i < 3; i++) {
            assertThat(service.attempt(key, false)).as("attempts still has its 3").isEqualTo("ok");
        }
    }

    @Test
    @DisplayName("CompletionStage: decided by how the stage completes")
    void completionStage() throws Exception {
        FailuresOnlyService service = start();
        String key = key();
        for (int i = 0; i < 5; i++) {
            assertThat(service.stage(key, false).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("ok");
        }
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> service.stage(key, true).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(IllegalStateException.class);
        }
        assertThatThrownBy(() -> service.stage(key, false).toCompletableFuture().get(10, TimeUnit.SECONDS))
                .cause().isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    @DisplayName("Uni and Multi: decided by their item, completion or failure, at each subscription")
    void mutinyResults() {
        FailuresOnlyService service = start();
        String key = key();
        for (int i = 0; i < 5; i++) {
            assertThat(service.uni(key, false).await().atMost(WAIT)).isEqualTo("ok");
            assertThat(service.multi(key, false).collect().asList().await().atMost(WAIT)).containsExactly("a", "b");
        }
        assertThatExceptionOfType(IllegalStateException.class)
                .isThrownBy(() -> service.uni(key, true).await().atMost(WAIT));
        assertThatExceptionOfType(IllegalStateException.class)
                .isThrownBy(() -> service.multi(key, true).collect().asList().await().atMost(WAIT));
        assertThatExceptionOfType(IllegalStateException.class)
                .isThrownBy(() -> service.uni(key, true).await().atMost(WAIT));
        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> service.uni(key, false).await().atMost(WAIT));
    }

    @Test
    @DisplayName("a bad count, status or exception class fails the start, naming the property")
    void badSettings() {
        assertThatThrownBy(() -> start("ratelimiter.buckets.attempts.count", "sometimes"))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.buckets.attempts.count: 'sometimes' is not a count; use all or "
                        + "failures");
        assertThatThrownBy(() -> start("ratelimiter.buckets.attempts.failure-statuses", "4xx"))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.buckets.attempts.failure-statuses: '4xx' is not a status");
        assertThatThrownBy(() -> start("ratelimiter.buckets.typed.failure-exceptions", "com.example.NoSuchException"))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.buckets.typed.failure-exceptions: no class "
                        + "com.example.NoSuchException is visible");
        assertThatThrownBy(() -> start("ratelimiter.buckets.typed.failure-exceptions", "java.lang.String"))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("java.lang.String is not an exception class");
    }
}
