package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import jakarta.enterprise.context.ApplicationScoped;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code @RateLimited(cost = ...)}, {@code RateLimits.consume(bucket, key, cost)} and a bucket of two windows, in
 * Weld.
 */
class CostAndWindowsCdiTest {

    private static final Map<String, String> PROPERTIES = Map.of(
            "ratelimiter.buckets.export.limit", "25",
            "ratelimiter.buckets.export.window", "PT1M",
            "ratelimiter.buckets.projects.limits", "2/PT1S, 3/PT1H");

    private CdiContainer cdi;

    /** An export costs 10 of the bucket's 25; a listing counts in both windows of projects. */
    @ApplicationScoped
    public static class ExportService {
        private final AtomicInteger runs = new AtomicInteger();

        @RateLimited(bucket = "export", cost = 10)
        public String export(@RateLimitKey String account) {
            runs.incrementAndGet();
            return "csv";
        }

        @RateLimited(bucket = "projects")
        public String projects(@RateLimitKey String account) {
            runs.incrementAndGet();
            return "projects";
        }

        public int runs() {
            return runs.get();
        }
    }

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @Test
    @DisplayName("cost 10 of 25: two exports run, the third is refused without running and the 5 left stay for RateLimits.consume(..., 5)")
    void annotationCost() {
        cdi = CdiContainer.start(PROPERTIES, ExportService.class);
        ExportService service = cdi.select(ExportService.class);
        service.export("acme");
        service.export("acme");
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.export("acme"))
                .satisfies(e -> assertThat(e.verdict().remaining()).isEqualTo(5));
        assertThat(service.runs()).isEqualTo(2);
        RateLimits limits = cdi.select(RateLimits.class);
        assertThat(limits.consume("export", "acme", 0).outcome()).as("a check").isEqualTo(Outcome.ALLOWED);
        Verdict five = limits.consume("export", "acme", 5);
        assertThat(five.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(five.remaining()).isZero();
    }

    @Test
    @DisplayName("RateLimits.consume refuses a negative cost, or one above the bucket's smallest limit, with IllegalArgumentException")
    void apiCostOutOfRange() {
        cdi = CdiContainer.start(PROPERTIES, ExportService.class);
        RateLimits limits = cdi.select(RateLimits.class);
        assertThatIllegalArgumentException().isThrownBy(() -> limits.consume("export", "acme", -1))
                .withMessageContaining("cost -1").withMessageContaining("from 0 to 25");
        assertThatIllegalArgumentException().isThrownBy(() -> limits.consume("projects", "acme", 3))
                .withMessageContaining("from 0 to 2");
        assertThat(limits.consume("projects", "acme", 2).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("ratelimiter.buckets.projects.limits=2/PT1S, 3/PT1H: the burst window refuses the third call, and its refusal spends nothing of the hour")
    void severalWindowsThroughTheInterceptor() {
        cdi = CdiContainer.start(PROPERTIES, ExportService.class);
        ExportService service = cdi.select(ExportService.class);
        service.projects("acme");
        service.projects("acme");
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.projects("acme"))
                .satisfies(e -> assertThat(e.verdict().windows()).extracting(Verdict.Window::remaining)
                        .containsExactly(0L, 1L));
        assertThat(cdi.select(RateLimits.class).consume("projects", "acme", 0).windows())
                .extracting(Verdict.Window::remaining).containsExactly(0L, 1L);
    }
}
