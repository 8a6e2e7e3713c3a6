package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.BucketName;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitBucket;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import jakarta.enterprise.context.control.RequestContextController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimits#usage}: a key's quota read without spending it (docs/guide.md#reading-a-keys-quota), under the
 * key's plan, and none of a decision's effects: no count, no headers, no decision in the metrics, no denial event,
 * a shadow bucket's real counts.
 */
class QuotaUsageCdiTest {

    private CdiContainer cdi;
    private RateLimits limits;
    private final String tenant = "tenant-" + UUID.randomUUID();

    @BeforeEach
    void start() {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.exports.limit", "3",
                "ratelimiter.buckets.exports.window", "PT1M",
                "ratelimiter.buckets.projects.limits", "2/PT10S, 5/PT1H",
                "ratelimiter.buckets.reports.limit", "2",
                "ratelimiter.buckets.reports.window", "PT1M",
                "ratelimiter.buckets.reports.plans", "free,pro",
                "ratelimiter.buckets.reports.plans.free.limit", "2",
                "ratelimiter.buckets.reports.plans.pro.limit", "5",
                "ratelimiter.buckets.reports.plan-resolver", "tenant-plans",
                "ratelimiter.metrics.system", "micrometer"));
        properties.put("ratelimiter.buckets.trial.limit", "1");
        properties.put("ratelimiter.buckets.trial.window", "PT1M");
        properties.put("ratelimiter.buckets.trial.mode", "shadow");
        properties.put("ratelimiter.buckets.tokens.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.tokens.limit", "5");
        properties.put("ratelimiter.buckets.tokens.window", "PT1M");
        properties.put("ratelimiter.buckets.tokens.burst", "3");
        cdi = CdiContainer.start(properties, TenantPlans.class, DenialRecorder.class, MicrometerRegistry.class);
        limits = cdi.select(RateLimits.class);
    }

    @AfterEach
    void stop() {
        cdi.close();
        MicrometerRegistry.REGISTRY.clear();
    }

    private double decisions() {
        return MicrometerRegistry.REGISTRY.find("rate_limiter.decisions").counters().stream()
                .mapToDouble(counter -> counter.count()).sum();
    }

    @Test
    @DisplayName("a key never counted: every attempt left, the window's whole length; reading it spends nothing")
    void neverCounted() {
        for (int i = 0; i < 5; i++) {
            Verdict usage = limits.usage("exports", tenant);
            assertThat(usage.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(usage.limit()).isEqualTo(3);
            assertThat(usage.remaining()).isEqualTo(3);
            assertThat(usage.resetAfter()).isEqualTo(Duration.ofMinutes(1));
        }
        assertThat(limits.consume("exports", tenant).remaining()).as("the first call counts from 3").isEqualTo(2);
    }

    @Test
    @DisplayName("after calls: what is left and when the window ends; spent: DENIED, with no denial event, no decision in the metrics")
    void afterCalls() {
        limits.consume("exports", tenant);
        limits.consume("exports", tenant);
        Verdict usage = limits.usage("exports", tenant);
        assertThat(usage.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(usage.remaining()).isEqualTo(1);
        assertThat(usage.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));

        limits.consume("exports", tenant);
        double decided = decisions();
        Verdict spent = limits.usage("exports", tenant);
        assertThat(spent.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(spent.remaining()).isZero();
        assertThat(spent.resetAfter()).isPositive();
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();
        assertThat(decisions()).as("no decision counted for the read").isEqualTo(decided).isEqualTo(3);
    }

    @Test
    @DisplayName("a token bucket never counted reads full: its burst left, full again in 0; after a call, time until full")
    void tokenBucket() {
        Verdict fresh = limits.usage("tokens", tenant);
        assertThat(fresh.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(fresh.remaining()).isEqualTo(3);
        assertThat(fresh.resetAfter()).isZero();
        limits.consume("tokens", tenant);
        Verdict after = limits.usage("tokens", tenant);
        assertThat(after.remaining()).isEqualTo(2);
        assertThat(after.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(12));
    }

    @Test
    @DisplayName("a bucket of several windows: each window's limit and remainder")
    void severalWindows() {
        limits.consume("projects", tenant);
        Verdict usage = limits.usage("projects", tenant);
        assertThat(usage.windows()).extracting(window -> window.limit().limit(), Verdict.Window::remaining)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2L, 1L),
                        org.assertj.core.groups.Tuple.tuple(5L, 4L));
        assertThat(usage.remaining()).isEqualTo(1);
    }

    @Test
    @DisplayName("under the key's plan, from the bucket's plan-resolver: acme on pro 5, a tenant on no plan 2")
    void underThePlan() {
        assertThat(limits.usage("reports", "acme").limit()).isEqualTo(5);
        assertThat(limits.usage("reports", tenant).limit()).isEqualTo(2);
        limits.consume("reports", "acme");
        assertThat(limits.usage("reports", "acme").remaining()).isEqualTo(4);
    }

    @Test
    @DisplayName("inside a request the read adds nothing to the response's RateLimit headers")
    void noHeaders() {
        RequestContextController request = cdi.select(RequestContextController.class);
        request.activate();
        try {
            limits.usage("exports", tenant);
            assertThat(cdi.select(RequestIdentity.class).applied().all()).isEmpty();
        } finally {
            request.deactivate();
        }
    }

    @Test
    @DisplayName("a bucket in shadow mode shows its real count: DENIED once spent, where consume lets the call through")
    void shadowShowsRealCounts() {
        limits.consume("trial", tenant);
        assertThat(limits.consume("trial", tenant).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limits.usage("trial", tenant).outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("a bucket handle reads the same, with the normalization its calls use")
    void bucketHandle() {
        RateLimitBucket exports = cdi.select(RateLimitBucket.class, BucketName.Literal.of("exports"));
        exports.consume(" Alice ", KeyNormalization.LOGIN);
        assertThat(exports.usage("alice", KeyNormalization.LOGIN).remaining()).isEqualTo(2);
        assertThat(limits.usage("exports", "ALICE", KeyNormalization.LOGIN).remaining()).isEqualTo(2);
        exports.consume("Bob");
        assertThat(exports.usage("Bob").remaining()).as("NONE: the key as given").isEqualTo(2);
        assertThat(exports.usage("bob").remaining()).isEqualTo(3);
    }
}
