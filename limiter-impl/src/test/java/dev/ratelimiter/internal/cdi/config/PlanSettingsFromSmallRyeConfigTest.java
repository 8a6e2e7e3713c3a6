package dev.ratelimiter.internal.cdi.config;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.internal.core.settings.BucketPlans;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.testing.LogCapture;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Plans read through a real MicroProfile Config (SmallRye Config) as the library reads it at startup
 * ({@link LimiterConfiguration}): environment variables found by the dotted names they stand for, under a profile
 * too, and never read as buckets of their own (docs/plans.md).
 */
class PlanSettingsFromSmallRyeConfigTest {

    private static final Map<String, String> GLOBAL_BUCKETS = Map.of(
            "ratelimiter.buckets.api-authenticated.limit", "600",
            "ratelimiter.buckets.api-authenticated.window", "PT1M",
            "ratelimiter.buckets.api-anonymous.limit", "120",
            "ratelimiter.buckets.api-anonymous.window", "PT1M");

    private LogCapture log;

    @BeforeEach
    void listen() {
        log = LogCapture.of(LimiterConfiguration.class);
    }

    @AfterEach
    void stopListening() {
        log.close();
    }

    private static LimiterConfiguration read(Map<String, String> properties, Map<String, String> env,
                                             String profile) {
        Map<String, String> all = new HashMap<>(GLOBAL_BUCKETS);
        all.putAll(properties);
        SmallRyeConfigBuilder builder = new SmallRyeConfigBuilder().withSources(
                new PropertiesConfigSource(all, "test", 100), new EnvConfigSource(env, 300));
        if (profile != null) {
            builder.withProfile(profile);
        }
        LimiterConfiguration configuration = new LimiterConfiguration();
        configuration.config = builder.build();
        configuration.read();
        return configuration;
    }

    @Test
    @DisplayName("RATELIMITER_BUCKETS_REPORTS_PLANS, _PLANS_PRO_PLUS_LIMIT, _PLANS_TRIAL_LIMITS and _BURST, "
            + "_PLAN_RESOLVER and a dashed bucket's _PLANS_GOLD_LIMIT: plans of reports and api-authenticated, no "
            + "other bucket")
    void environmentVariables() {
        Map<String, String> env = new HashMap<>();
        env.put("RATELIMITER_BUCKETS_REPORTS_LIMIT", "10");
        env.put("RATELIMITER_BUCKETS_REPORTS_WINDOW", "PT1M");
        env.put("RATELIMITER_BUCKETS_REPORTS_ALGORITHM", "token-bucket");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS", "trial,pro-plus");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_PLUS_LIMIT", "1000");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_TRIAL_LIMITS", "5/PT1M");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_TRIAL_BURST", "2");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLAN_RESOLVER", "tenantPlans");
        env.put("RATELIMITER_BUCKETS_API_AUTHENTICATED_PLANS", "gold");
        env.put("RATELIMITER_BUCKETS_API_AUTHENTICATED_PLANS_GOLD_LIMIT", "6000");

        LimiterConfiguration configuration = read(Map.of(), env, null);

        assertThat(configuration.settings().buckets())
                .containsOnlyKeys("api-anonymous", "api-authenticated", "reports");
        BucketPlans reports = configuration.settings().plans("reports");
        assertThat(reports.resolver()).contains("tenantPlans");
        assertThat(reports.plan("pro-plus").orElseThrow().limits())
                .containsExactly(new Limit(1000, Duration.ofMinutes(1)));
        Bucket trial = reports.plan("trial").orElseThrow();
        assertThat(trial.limits()).containsExactly(new Limit(5, Duration.ofMinutes(1)));
        assertThat(trial.burst()).isEqualTo(2);
        assertThat(configuration.settings().plans("api-authenticated").plan("gold").orElseThrow().limit())
                .isEqualTo(6000);
        assertThat(log.records(Level.ALL)).as("no unknown-property warning").isEmpty();
    }

    @Test
    @DisplayName("an environment variable for a plan reports does not declare fails the start naming it; it is no "
            + "bucket reports-plans-gold")
    void undeclaredPlan() {
        Map<String, String> env = Map.of(
                "RATELIMITER_BUCKETS_REPORTS_PLANS", "pro",
                "RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_LIMIT", "100",
                "RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_LIMIT", "1000",
                "RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_WINDOW", "PT1M");
        assertThatThrownBy(() -> read(Map.of("ratelimiter.buckets.reports.limit", "10",
                "ratelimiter.buckets.reports.window", "PT1M"), env, null))
                .isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems()).containsExactlyInAnyOrder(
                        "RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_LIMIT (ratelimiter.buckets.reports.plans.gold.limit): "
                                + "bucket 'reports' declares no plan 'gold'; add the plan to "
                                + "ratelimiter.buckets.reports.plans, or remove the property (an environment variable "
                                + "with _PLANS_ after the bucket's name always sets a plan: a bucket whose name holds "
                                + "'-plans-' is configured in properties form)",
                        "RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_WINDOW (ratelimiter.buckets.reports.plans.gold.window)"
                                + ": a plan changes limits only: set its limit (a bucket of one window), limits or "
                                + "burst (a token bucket); window is the bucket's own, "
                                + "ratelimiter.buckets.reports.window, the same for every plan"));
    }

    @Test
    @DisplayName("plans under the active profile, in properties and environment form, apply; another profile's "
            + "undeclared plan is ignored")
    void profiles() {
        Map<String, String> properties = Map.of(
                "ratelimiter.buckets.reports.limit", "10",
                "ratelimiter.buckets.reports.window", "PT1M",
                "%dev.ratelimiter.buckets.reports.plans", "pro, team",
                "%dev.ratelimiter.buckets.reports.plans.pro.limit", "100",
                "%prod.ratelimiter.buckets.reports.plans.gold.limit", "1000");
        Map<String, String> env = Map.of("_DEV_RATELIMITER_BUCKETS_REPORTS_PLANS_TEAM_LIMIT", "200",
                "_PROD_RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_LIMIT", "1000");

        BucketPlans plans = read(properties, env, "dev").settings().plans("reports");

        assertThat(plans.plans()).containsOnlyKeys("pro", "team");
        assertThat(plans.plan("team").orElseThrow().limit()).isEqualTo(200);
        assertThat(read(properties, env, null).settings().plans()).as("no profile active").isEmpty();
        assertThat(log.records(Level.ALL)).as("no unknown-property warning").isEmpty();
    }

    @Test
    @DisplayName("the plan cache's properties as environment variables")
    void planCache() {
        LimiterConfiguration configuration = read(Map.of(), Map.of("RATELIMITER_PLANS_CACHE_TTL", "PT10S",
                "RATELIMITER_PLANS_CACHE_MAX_ENTRIES", "50"), null);
        assertThat(configuration.settings().planCache().ttl()).isEqualTo(Duration.ofSeconds(10));
        assertThat(configuration.settings().planCache().maxEntries()).isEqualTo(50);
    }
}
