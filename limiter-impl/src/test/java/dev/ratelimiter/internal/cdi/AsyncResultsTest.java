package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimiterUnavailableException;
import io.smallrye.mutiny.Uni;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @RateLimited} methods returning {@code CompletionStage}, {@code Uni} and {@code Multi}: the refusal
 * arrives in the method's own type, never thrown at the call; stages are counted at the call, Mutiny types at each
 * subscription.
 */
class AsyncResultsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private CdiContainer cdi;

    @AfterEach
    void stop() throws Exception {
        if (cdi != null) {
            cdi.close();
        }
    }

    private AsyncService start(String... more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.login.limit", "3",
                "ratelimiter.buckets.login.window", "PT15M"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        cdi = CdiContainer.start(properties, AsyncService.class);
        return cdi.select(AsyncService.class);
    }

    private static String key() {
        return "k-" + UUID.randomUUID();
    }

    @Test
    @DisplayName("CompletionStage: counted at the call; the 4th call returns a stage failed with the denial, and the method does not run")
    void completionStage() throws Exception {
        AsyncService service = start();
        String key = key();
        for (int i = 0; i < 3; i++) {
            assertThat(service.stage(key).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("done");
        }

        CompletionStage<String> refused = service.stage(key);

        assertThatThrownBy(() -> refused.toCompletableFuture().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RateLimitExceededException.class);
        assertThat(service.runs()).isEqualTo(3);
    }

    @Test
    @DisplayName("CompletableFuture: a denial is a failed future, and a thenApply downstream fails with it as cause")
    void completableFuture() {
        AsyncService service = start();
        String key = key();
        for (int i = 0; i < 3; i++) {
            service.future(key);
        }

        CompletableFuture<Integer> downstream = service.future(key).thenApply(String::length);

        assertThatThrownBy(() -> downstream.get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    @DisplayName("Uni: nothing is counted until subscription, each subscription counts, the 4th fails with the denial without running the method")
    void uniCountedAtSubscription() {
        AsyncService service = start();
        String key = key();
        List<Uni<String>> unsubscribed = List.of(service.uni(key), service.uni(key), service.uni(key),
                service.uni(key));
        assertThat(service.runs()).as("created, not subscribed").isZero();

        Uni<String> uni = unsubscribed.get(0);
        for (int i = 0; i < 3; i++) {
            assertThat(uni.await().atMost(WAIT)).as("subscription %d", i + 1).isEqualTo("done");
        }

        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> uni.await().atMost(WAIT))
                .satisfies(e -> assertThat(e.bucket().name()).isEqualTo("login"));
        assertThat(service.runs()).isEqualTo(3);
    }

    @Test
    @DisplayName("Multi: each subscription counts; the 4th fails with the denial before any item")
    void multiCountedAtSubscription() {
        AsyncService service = start();
        String key = key();
        for (int i = 0; i < 3; i++) {
            assertThat(service.multi(key).collect().asList().await().atMost(WAIT)).containsExactly("a", "b");
        }

        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> service.multi(key).collect().asList().await().atMost(WAIT));
        assertThat(service.runs()).isEqualTo(3);
    }

    @Test
    @DisplayName("a fail-closed outage reaches a Uni as RateLimiterUnavailableException and a stage as its failure")
    void failClosedInOwnType() {
        AsyncService service = start("ratelimiter.memory.max-keys", "1",
                "ratelimiter.buckets.login.on-outage", "fail-closed");
        service.uni("first").await().atMost(WAIT);

        assertThatExceptionOfType(RateLimiterUnavailableException.class)
                .isThrownBy(() -> service.uni("second").await().atMost(WAIT));
        assertThatThrownBy(() -> service.stage("third").toCompletableFuture().get(10, TimeUnit.SECONDS))
                .cause().isInstanceOf(RateLimiterUnavailableException.class);
    }
}
