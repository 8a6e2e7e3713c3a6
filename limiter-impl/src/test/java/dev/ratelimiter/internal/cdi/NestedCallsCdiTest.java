package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call nested in another of the same bucket and key, on the same thread, counts once
 * (docs/guide.md#several-limits-on-one-method); Weld does not intercept a bean's call of its own method, so the
 * nesting here is across beans, as ArC's self-interception is on Quarkus (limiter-it/quarkus, QuarkusNestedCallTest).
 */
class NestedCallsCdiTest {

    private CdiContainer cdi;
    private RateLimits limits;

    @BeforeEach
    void start() {
        cdi = CdiContainer.start(Map.of(
                "ratelimiter.buckets.nested.limit", "5",
                "ratelimiter.buckets.nested.window", "PT1M",
                "ratelimiter.buckets.other.limit", "5",
                "ratelimiter.buckets.other.window", "PT1M"), Outer.class, Inner.class);
        limits = cdi.select(RateLimits.class);
    }

    @AfterEach
    void stop() {
        cdi.close();
    }

    @Test
    @DisplayName("a call that calls another of the same bucket and key counts once; calls one after another count each")
    void nestedCountsOnce() {
        cdi.select(Outer.class).outer("carol");
        assertThat(remaining("nested", "carol")).as("outer and the nested inner call").isEqualTo(4);

        Inner inner = cdi.select(Inner.class);
        inner.inner("dave");
        inner.inner("dave");
        assertThat(remaining("nested", "dave")).as("two calls from outside").isEqualTo(3);
    }

    @Test
    @DisplayName("a nested call of another key or another bucket counts; after a nested call, the next outer call counts")
    void otherKeysAndBucketsCount() {
        Outer outer = cdi.select(Outer.class);
        outer.outerOtherKey("erin");
        assertThat(remaining("nested", "erin")).isEqualTo(4);
        assertThat(remaining("nested", "erin-other")).isEqualTo(4);

        outer.outerOtherBucket("frank");
        assertThat(remaining("nested", "frank")).isEqualTo(4);
        assertThat(remaining("other", "frank")).isEqualTo(4);

        outer.outer("frank");
        outer.outer("frank");
        assertThat(remaining("nested", "frank")).as("each outer call counts, its nested one does not").isEqualTo(2);
    }

    @Test
    @DisplayName("a CompletionStage method's nested call counts once too")
    void completionStage() {
        cdi.select(Outer.class).outerStage("gina").toCompletableFuture().join();
        assertThat(remaining("nested", "gina")).isEqualTo(4);
    }

    /** What is left for the key, by a check that counts nothing (cost 0). */
    private long remaining(String bucket, String key) {
        return limits.consume(bucket, key, 0).remaining();
    }

    @ApplicationScoped
    public static class Outer {

        @Inject
        Inner inner;

        @RateLimited(bucket = "nested")
        public void outer(@RateLimitKey String user) {
            inner.inner(user);
        }

        @RateLimited(bucket = "nested")
        public void outerOtherKey(@RateLimitKey String user) {
            inner.inner(user + "-other");
        }

        @RateLimited(bucket = "nested")
        public void outerOtherBucket(@RateLimitKey String user) {
            inner.other(user);
        }

        @RateLimited(bucket = "nested")
        public CompletionStage<Void> outerStage(@RateLimitKey String user) {
            inner.inner(user);
            return CompletableFuture.completedFuture(null);
        }
    }

    @ApplicationScoped
    public static class Inner {

        @RateLimited(bucket = "nested")
        public void inner(@RateLimitKey String user) {
        }

        @RateLimited(bucket = "other")
        public void other(@RateLimitKey String user) {
        }
    }
}
