package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.cdi.call.AppliedLimits;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import jakarta.enterprise.context.control.RequestContextController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * {@link RateLimits#consume} joins the request's RateLimit headers ({@link AppliedLimits}) as the interceptor's
 * decisions do, and works the same outside a request, recording nothing.
 */
class RateLimitsFacadeTest {

    private CdiContainer cdi;

    @BeforeEach
    void start() {
        cdi = CdiContainer.start(Map.of(
                "ratelimiter.buckets.exports.limit", "2",
                "ratelimiter.buckets.exports.window", "PT1M",
                "ratelimiter.buckets.search.limit", "5",
                "ratelimiter.buckets.search.window", "PT10S"));
    }

    @AfterEach
    void stop() {
        cdi.close();
    }

    @Test
    @DisplayName("inside a request each consume is recorded for the response's headers, the latest verdict per bucket, in order")
    void recordedInsideARequest() {
        RateLimits limits = cdi.select(RateLimits.class);
        RequestContextController request = cdi.select(RequestContextController.class);
        String tenant = "tenant-" + UUID.randomUUID();
        request.activate();
        try {
            limits.consume("exports", tenant);
            Verdict search = limits.consume("search", tenant);
            Verdict latest = limits.consume("exports", tenant);

            assertThat(cdi.select(RequestIdentity.class).applied().all())
                    .extracting(applied -> applied.bucket().name(), AppliedLimits.Applied::verdict)
                    .containsExactly(tuple("search", search), tuple("exports", latest));
            assertThat(latest.remaining()).isZero();
        } finally {
            request.deactivate();
        }
    }

    @Test
    @DisplayName("outside a request (a scheduled job) consume counts and decides as usual, without failing")
    void outsideARequest() {
        RateLimits limits = cdi.select(RateLimits.class);
        String tenant = "tenant-" + UUID.randomUUID();

        assertThat(limits.consume("exports", tenant).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limits.consume("exports", tenant).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limits.consume("exports", tenant).outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("a request's record holds only its own decisions: one made before it, outside any request, is not in it")
    void earlierDecisionsOutsideNotRecorded() {
        RateLimits limits = cdi.select(RateLimits.class);
        String tenant = "tenant-" + UUID.randomUUID();
        limits.consume("search", tenant);
        RequestContextController request = cdi.select(RequestContextController.class);
        request.activate();
        try {
            Verdict verdict = limits.consume("exports", tenant);

            assertThat(cdi.select(RequestIdentity.class).applied().all()).singleElement().satisfies(applied -> {
                assertThat(applied.bucket().name()).isEqualTo("exports");
                assertThat(applied.verdict()).isEqualTo(verdict);
            });
        } finally {
            request.deactivate();
        }
    }
}
