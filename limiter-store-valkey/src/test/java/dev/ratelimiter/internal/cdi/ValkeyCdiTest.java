package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimiterStateChanged;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.health.RateLimiterReadinessCheck;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Valkey backend as the CDI layer builds it, with no server at the configured address: the application
 * starts anyway, decisions fall back, the state change is announced once and readiness reports it.
 */
class ValkeyCdiTest {

    /** Observes state changes, as an application's alerting hook would. */
    @ApplicationScoped
    public static class StateRecorder {
        private final List<RateLimiterStateChanged> changes = new CopyOnWriteArrayList<>();

        void onChange(@Observes RateLimiterStateChanged change) {
            changes.add(change);
        }

        List<RateLimiterStateChanged> changes() {
            return List.copyOf(changes);
        }
    }

    private CdiContainer cdi;

    private void start(String... more) throws IOException {
        int deadPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            deadPort = socket.getLocalPort(); // nothing listens there once closed
        }
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.backend", "valkey",
                "ratelimiter.valkey.url", "redis://127.0.0.1:" + deadPort,
                "ratelimiter.buckets.login.limit", "2",
                "ratelimiter.buckets.login.window", "PT1M"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        cdi = CdiContainer.start(properties, StateRecorder.class, RateLimiterReadinessCheck.class,
                properties.containsKey("ratelimiter.buckets.exports.concurrency") ? ExportService.class
                        : StateRecorder.class);
    }

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @Test
    @DisplayName("store down: decisions come from the fallback, one degraded event, readiness UP with state degraded")
    void degradedWithFallback() throws IOException {
        start();
        RateLimits limits = cdi.select(RateLimits.class);
        for (int i = 0; i < 5; i++) {
            limits.consume("login", "alice");
        }
        assertThat(limits.consume("login", "bob").outcome()).as("fallback counts bob anew").isEqualTo(Outcome.ALLOWED);
        assertThat(limits.consume("login", "alice").outcome()).as("fallback limit holds").isEqualTo(Outcome.DENIED);

        await().atMost(Duration.ofSeconds(5)).until(() -> !cdi.select(StateRecorder.class).changes().isEmpty());
        RateLimiterStateChanged change = cdi.select(StateRecorder.class).changes().get(0);
        assertThat(change.backend()).isEqualTo("valkey");
        assertThat(change.degraded()).isTrue();
        assertThat(change.lastError()).isPresent();
        assertThat(cdi.select(StateRecorder.class).changes()).hasSize(1);

        HealthCheckResponse health = cdi.select(RateLimiterReadinessCheck.class, Readiness.Literal.INSTANCE).call();
        assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(health.getData()).hasValueSatisfying(data -> {
            assertThat(data).containsEntry("backend", "valkey").containsEntry("state", "degraded");
            assertThat((Long) data.get("fallbacks")).isPositive();
            assertThat(data).containsKey("lastError");
        });
    }

    @Test
    @DisplayName("a concurrency bucket on Valkey: a CompletionStage's call holds its permit in the store until the "
            + "stage completes; meanwhile the next call of the key is refused, then let in")
    void permitHeldUntilTheStageCompletes() throws IOException {
        start("ratelimiter.valkey.url", dev.ratelimiter.testing.TestServers.valkeyUrl(),
                "ratelimiter.buckets.exports.concurrency", "1", "ratelimiter.buckets.export-starts.limit", "5",
                "ratelimiter.buckets.export-starts.window", "PT1M");
        ExportService exports = cdi.select(ExportService.class);
        String tenant = "tenant-" + java.util.UUID.randomUUID();
        java.util.concurrent.CompletableFuture<String> running = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletionStage<String> first = exports.later(tenant, running);
        assertThat(exports.later(tenant, java.util.concurrent.CompletableFuture.completedFuture("x"))
                .toCompletableFuture()).failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(dev.ratelimiter.RateLimitExceededException.class);
        running.complete("done");
        assertThat(first.toCompletableFuture().join()).isEqualTo("done");
        assertThat(exports.later(tenant, java.util.concurrent.CompletableFuture.completedFuture("again"))
                .toCompletableFuture().join()).isEqualTo("again");
        assertThat(cdi.select(RateLimits.class).usage("exports", tenant).remaining()).isEqualTo(1);
    }

    @Test
    @DisplayName("with ratelimiter.health.down-when-degraded=true readiness is DOWN while degraded")
    void downWhenDegraded() throws IOException {
        start("ratelimiter.health.down-when-degraded", "true");
        RateLimits limits = cdi.select(RateLimits.class);
        for (int i = 0; i < 3; i++) {
            limits.consume("login", "k" + i);
        }
        assertThat(cdi.select(RateLimiterReadinessCheck.class, Readiness.Literal.INSTANCE).call().getStatus())
                .isEqualTo(HealthCheckResponse.Status.DOWN);
    }

    @Test
    @DisplayName("cluster mode with no seed node answering: readiness says degraded and names the failing part in failingNodes")
    void clusterFailingNodesInReadiness() throws IOException {
        int deadPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            deadPort = socket.getLocalPort();
        }
        start("ratelimiter.valkey.mode", "cluster", "ratelimiter.valkey.nodes", "127.0.0.1:" + deadPort);
        RateLimits limits = cdi.select(RateLimits.class);
        for (int i = 0; i < 3; i++) {
            assertThat(limits.consume("login", "k" + i).outcome()).isEqualTo(Outcome.ALLOWED); // the fallback
        }

        HealthCheckResponse health = cdi.select(RateLimiterReadinessCheck.class, Readiness.Literal.INSTANCE).call();
        assertThat(health.getData()).hasValueSatisfying(data -> assertThat(data)
                .containsEntry("state", "degraded").containsEntry("failingNodes", "seed nodes"));
    }
}
