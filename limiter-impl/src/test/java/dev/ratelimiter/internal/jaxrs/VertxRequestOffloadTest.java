package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Verdict;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The offload of Quarkus REST filters, with a real Vert.x event loop and a recording stand-in for Quarkus REST's
 * suspendable request context: the decision leaves the event loop, the request is suspended meanwhile, and it is
 * resumed once, back on its context. (A refusal aborts the request instead, which resumes it: building a
 * {@code Response} needs a JAX-RS runtime, so that path is proven on Quarkus itself, by the 429 scenarios of
 * limiter-it's {@code QuarkusValkeyExampleApiTest}.)
 */
class VertxRequestOffloadTest {

    private final Vertx vertx = Vertx.vertx();
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final RequestOffload offload = new VertxRequestOffload();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("on the event loop: suspended, decided on a worker thread, applied and resumed on the event loop")
    void offloadedAndResumed() throws Exception {
        CompletableFuture<Boolean> handed = new CompletableFuture<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        vertx.runOnContext(ignored -> handed.complete(offload.offload(suspendable(), () -> {
            threads.add("decision on event loop: " + Context.isOnEventLoopThread());
            return Verdict.allowed(10, 9, Duration.ofSeconds(60));
        }, verdict -> {
            threads.add("apply on event loop: " + Context.isOnEventLoopThread());
            return null;
        })));

        assertThat(handed.get(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains("resume"));
        assertThat(threads).containsExactly("decision on event loop: false", "apply on event loop: true");
        assertThat(calls).containsExactly("suspend", "resume");
    }

    @Test
    @DisplayName("a decision that throws resumes the request with the exception")
    void failureResumesWithIt() {
        vertx.runOnContext(ignored -> offload.offload(suspendable(), () -> {
            throw new IllegalStateException("boom");
        }, verdict -> null));

        await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains("resume IllegalStateException"));
        assertThat(calls).containsExactly("suspend", "resume IllegalStateException");
    }

    @Test
    @DisplayName("applying the verdict on the event loop throws, an Error included: the request is resumed with it, "
            + "never left suspended")
    void applyFailureResumesWithIt() {
        for (Throwable failure : List.of(new IllegalStateException("boom"), new NoClassDefFoundError("x/Y"))) {
            calls.clear();
            vertx.runOnContext(ignored -> offload.offload(suspendable(),
                    () -> Verdict.allowed(10, 9, Duration.ofSeconds(60)), verdict -> {
                        if (failure instanceof Error error) {
                            throw error;
                        }
                        throw (RuntimeException) failure;
                    }));
            String resumed = "resume " + failure.getClass().getSimpleName();
            await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains(resumed));
            assertThat(calls).containsExactly("suspend", resumed);
        }
    }

    @Test
    @DisplayName("off the event loop, or for a request Quarkus REST cannot suspend, nothing is offloaded")
    void inlineElsewhere() throws Exception {
        assertThat(offload.offload(suspendable(), () -> Verdict.allowed(1, 0, Duration.ofSeconds(1)), v -> null))
                .as("on a test thread").isFalse();
        ContainerRequestContext plain = (ContainerRequestContext) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ContainerRequestContext.class}, (proxy, method, args) -> {
                    calls.add(method.getName());
                    return null;
                });
        CompletableFuture<Boolean> handed = new CompletableFuture<>();
        vertx.runOnContext(ignored -> handed.complete(
                offload.offload(plain, () -> Verdict.allowed(1, 0, Duration.ofSeconds(1)), v -> null)));
        assertThat(handed.get(10, TimeUnit.SECONDS)).as("a request that is not suspendable").isFalse();
        assertThat(calls).isEmpty();
    }

    /** Records suspend and resume; anything else is not expected of the offload. */
    private ResteasyReactiveContainerRequestContext suspendable() {
        return (ResteasyReactiveContainerRequestContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ResteasyReactiveContainerRequestContext.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "suspend" -> calls.add("suspend");
                        case "resume" -> calls.add(args == null ? "resume"
                                : "resume " + args[0].getClass().getSimpleName());
                        default -> throw new UnsupportedOperationException(method.getName());
                    }
                    return null;
                });
    }
}
