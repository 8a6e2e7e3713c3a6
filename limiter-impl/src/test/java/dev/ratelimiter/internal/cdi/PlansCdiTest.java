package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Plans chosen at call time (docs/plans.md): a declared plan's limits, a customer's explicit limits, the bucket's
 * own for no plan, an undeclared one or a resolver that throws; a key keeps its count when its plan changes; the
 * resolver is asked once per key while its answer is cached; a resolver named wrongly fails the deployment.
 */
class PlansCdiTest {

    private CdiContainer cdi;

    private void start(Map<String, String> extra, Class<?>... beans) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.reports.limit", "2",
                "ratelimiter.buckets.reports.window", "PT1M",
                "ratelimiter.buckets.reports.plans", "free,pro",
                "ratelimiter.buckets.reports.plans.free.limit", "2",
                "ratelimiter.buckets.reports.plans.pro.limit", "5"));
        properties.putAll(extra);
        cdi = CdiContainer.start(properties, beans);
    }

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @ApplicationScoped
    public static class Reports {
        @RateLimited(bucket = "reports", planResolver = TenantPlans.class)
        public String run(@RateLimitKey String tenant) {
            return "report for " + tenant;
        }
    }

    private int allowed(String tenant, int calls) {
        Reports reports = cdi.select(Reports.class);
        int allowed = 0;
        for (int i = 0; i < calls; i++) {
            try {
                reports.run(tenant);
                allowed++;
            } catch (RateLimitExceededException e) {
                assertThat(e.bucket().name()).isEqualTo("reports");
            }
        }
        return allowed;
    }

    @Test
    @DisplayName("acme on pro gets 5 a minute, globex's contract 3, a tenant without a plan the bucket's own 2")
    void limitsByPlan() {
        start(Map.of(), Reports.class, TenantPlans.class);
        assertThat(allowed("acme", 8)).isEqualTo(5);
        assertThat(allowed("globex", 8)).isEqualTo(3);
        assertThat(allowed("hooli", 8)).isEqualTo(2);
    }

    @Test
    @DisplayName("an undeclared plan and a resolver that throws get the bucket's own limits, never an exception")
    void missesGetOwnLimits() {
        start(Map.of(), Reports.class, TenantPlans.class);
        assertThat(allowed("initech", 5)).isEqualTo(2);
        assertThat(allowed("broken", 5)).isEqualTo(2);
    }

    @Test
    @DisplayName("the refusal names the plan's limits, and the resolver is asked once while its answer is cached")
    void refusalUnderPlanAndCached() {
        start(Map.of(), Reports.class, TenantPlans.class);
        allowed("acme", 5);
        assertThatThrownBy(() -> cdi.select(Reports.class).run("acme"))
                .isInstanceOfSatisfying(RateLimitExceededException.class, e -> {
                    assertThat(e.bucket().plan()).isEqualTo("pro");
                    assertThat(e.bucket().limit()).isEqualTo(5);
                });
        assertThat(cdi.select(TenantPlans.class).asked()).isEqualTo(1);
    }

    @Test
    @DisplayName("a key moved from free to pro keeps its count: 2 spent on free leave 3 on pro")
    void keyKeepsCountAcrossPlans() {
        start(Map.of("ratelimiter.plans.cache-ttl", "PT0S"), Reports.class, TenantPlans.class);
        TenantPlans plans = cdi.select(TenantPlans.class);
        plans.put("umbrella", dev.ratelimiter.RateLimitPlan.named("free"));
        assertThat(allowed("umbrella", 3)).isEqualTo(2);
        plans.put("umbrella", dev.ratelimiter.RateLimitPlan.named("pro"));
        assertThat(allowed("umbrella", 5)).isEqualTo(3);
    }

    @Test
    @DisplayName("RateLimits.consume follows the bucket's plan-resolver property")
    void facadeFollowsConfiguredResolver() {
        start(Map.of("ratelimiter.buckets.reports.plan-resolver", "tenant-plans"), TenantPlans.class);
        RateLimits limits = cdi.select(RateLimits.class);
        Verdict verdict = limits.consume("reports", "acme");
        assertThat(verdict.limit()).isEqualTo(5);
        assertThat(verdict.remaining()).isEqualTo(4);
        assertThat(limits.consume("reports", "hooli").limit()).isEqualTo(2);
    }

    @Test
    @DisplayName("a plan-resolver property naming no bean fails the deployment, naming the property")
    void unknownResolverFailsStartup() {
        assertThatThrownBy(() -> start(Map.of("ratelimiter.buckets.reports.plan-resolver", "nobody"),
                TenantPlans.class))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.buckets.reports.plan-resolver='nobody': no RateLimitPlanResolver "
                        + "bean has this @Named name");
    }

    @Test
    @DisplayName("a bucket's own limits are labelled none: the plan a metric and an event see")
    void ownLimitsLabelledNone() {
        start(Map.of(), Reports.class, TenantPlans.class);
        Bucket own = cdi.select(RateLimits.class).bucket("reports");
        assertThat(own.plan()).isEqualTo(Bucket.NO_PLAN);
    }
}
