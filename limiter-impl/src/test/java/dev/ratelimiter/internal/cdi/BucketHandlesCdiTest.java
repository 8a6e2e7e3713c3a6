package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.BucketName;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitBucket;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A bucket injected by name, {@code @BucketName("report") RateLimitBucket}, counts as {@link RateLimits} does, and
 * one that is not configured fails the deployment, not the first request (docs/guide.md#deciding-in-code).
 */
class BucketHandlesCdiTest {

    private static final Map<String, String> REPORT = Map.of(
            "ratelimiter.buckets.report.limit", "2",
            "ratelimiter.buckets.report.window", "PT1M");

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    /** A normal-scoped bean, created on first use: only a check at startup sees its typo before a request does. */
    @ApplicationScoped
    static class Reports {
        @Inject
        @BucketName("report")
        RateLimitBucket reports;

        @Inject
        @Any
        Instance<RateLimitBucket> buckets;

        RateLimitBucket reports() {
            return reports;
        }

        Instance<RateLimitBucket> buckets() {
            return buckets;
        }
    }

    @ApplicationScoped
    static class Typo {
        @Inject
        @BucketName("report-pro")
        RateLimitBucket reports;
    }

    @Test
    @DisplayName("the handle counts in the bucket it names, shares its keys with RateLimits, and resets them")
    void countsAsRateLimits() {
        cdi = CdiContainer.start(REPORT, Reports.class);
        RateLimitBucket reports = cdi.select(Reports.class).reports();
        RateLimits limits = cdi.select(RateLimits.class);

        assertThat(reports.bucket().name()).isEqualTo("report");
        assertThat(reports.consume("Alice@Example.com", KeyNormalization.LOGIN).remaining()).isEqualTo(1);
        assertThat(limits.consume("report", "alice@example.com").outcome()).isEqualTo(Verdict.Outcome.ALLOWED);
        assertThat(reports.consume("alice@example.com").outcome()).isEqualTo(Verdict.Outcome.DENIED);

        reports.reset("ALICE@example.com", KeyNormalization.LOGIN);
        assertThat(limits.consume("report", "alice@example.com").remaining()).isEqualTo(1);
    }

    @Test
    @DisplayName("a bucket chosen at run time with BucketName.Literal is checked when selected, naming the properties")
    void selectedAtRunTime() {
        cdi = CdiContainer.start(REPORT, Reports.class);
        Instance<RateLimitBucket> buckets = cdi.select(Reports.class).buckets();

        assertThat(buckets.select(BucketName.Literal.of("report")).get().consume("bob", 2).remaining()).isZero();
        Throwable failure = catchThrowable(() -> buckets.select(BucketName.Literal.of("reprot")).get());
        while (failure.getCause() != null) { // a container may wrap what the producer threw
            failure = failure.getCause();
        }
        assertThat(failure).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bucket 'reprot' is not configured; set ratelimiter.buckets.reprot.limit");
    }

    @Test
    @DisplayName("an injected bucket that is not configured fails the deployment at startup, naming the field and "
            + "the properties to set, though the bean is never used")
    void typoFailsTheStart() {
        assertThatThrownBy(() -> cdi = CdiContainer.start(REPORT, Typo.class))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("@BucketName(\"report-pro\") on " + Typo.class.getName() + ".reports: bucket "
                        + "'report-pro' is not configured; set ratelimiter.buckets.report-pro.limit and "
                        + "ratelimiter.buckets.report-pro.window");
    }

    @Test
    @DisplayName("RateLimits with a bucket name that is not configured says what to set and how to have it checked")
    void plainNameAtRunTime() {
        cdi = CdiContainer.start(REPORT, Reports.class);
        assertThatThrownBy(() -> cdi.select(RateLimits.class).consume("report-pro", "alice"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bucket 'report-pro' is not configured; set ratelimiter.buckets.report-pro.limit and "
                        + "ratelimiter.buckets.report-pro.window, or ratelimiter.buckets.report-pro.limits (a bucket "
                        + "injected as @BucketName(\"report-pro\") RateLimitBucket is checked when the application "
                        + "starts)");
    }
}
