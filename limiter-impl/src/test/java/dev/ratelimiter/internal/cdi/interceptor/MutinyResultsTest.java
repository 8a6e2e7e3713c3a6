package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.Verdict;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@code Uni} whose decision blocks, subscribed on a Vert.x event loop: the decision leaves the loop, the method
 * and the refusal come back to it ({@link MutinyResults}; the interceptor's side is {@code AsyncResultsTest}).
 */
class MutinyResultsTest {

    private Vertx vertx;

    @AfterEach
    void stop() throws Exception {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    @DisplayName("a blocking decision subscribed on a Vert.x event loop runs on a worker; the method then runs back on the event loop")
    void blockingDecisionLeavesTheEventLoop() throws Exception {
        CompletableFuture<Boolean> decidedOnEventLoop = new CompletableFuture<>();
        CompletableFuture<Boolean> ranOnEventLoop = new CompletableFuture<>();

        CompletableFuture<Object> result = subscribeOnEventLoop(() -> {
            decidedOnEventLoop.complete(Context.isOnEventLoopThread());
            return null;
        }, () -> {
            ranOnEventLoop.complete(Context.isOnEventLoopThread());
            return Uni.createFrom().item("done");
        });

        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
        assertThat(decidedOnEventLoop.get()).as("decision on an event loop").isFalse();
        assertThat(ranOnEventLoop.get()).as("method on the event loop").isTrue();
    }

    @Test
    @DisplayName("a refusal decided on a worker fails the Uni subscribed on the event loop")
    void refusalFromWorker() {
        RateLimitExceededException denial = new RateLimitExceededException(
                Bucket.of("login", 3, Duration.ofMinutes(15)), Verdict.denied(3, Duration.ofMinutes(1)));

        CompletableFuture<Object> result = subscribeOnEventLoop(() -> denial, () -> Uni.createFrom().item("ran"));

        assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS)).cause().isSameAs(denial);
    }

    /** A blocking Uni decision subscribed on an event loop of {@link #vertx}; completes with its item or failure. */
    private CompletableFuture<Object> subscribeOnEventLoop(Supplier<RuntimeException> decision,
                                                           Callable<Object> method) {
        vertx = Vertx.vertx();
        CompletableFuture<Object> result = new CompletableFuture<>();
        vertx.getOrCreateContext().runOnContext(ignored -> ((Uni<?>) MutinyResults.defer(ResultType.UNI,
                counted -> decision.get(), false, true, new EventLoopOffload(), method, (counted, item, failure) -> {
                })).subscribe().with(result::complete, result::completeExceptionally));
        return result;
    }
}
