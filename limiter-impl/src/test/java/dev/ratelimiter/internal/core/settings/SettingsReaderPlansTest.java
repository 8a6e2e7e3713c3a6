package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.testing.RangeChecks;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A bucket's plans read from configuration (docs/plans.md): {@code plans}, each plan's {@code limit}, {@code limits}
 * and {@code burst}, {@code plan-resolver} and the plan cache, in properties and environment form and under a
 * profile; every mistake fails the start naming the property.
 */
class SettingsReaderPlansTest {

    /** Properties files' values. */
    private final Map<String, String> properties = new HashMap<>(Map.of(
            "ratelimiter.buckets.api-authenticated.limit", "600",
            "ratelimiter.buckets.api-authenticated.window", "PT1M",
            "ratelimiter.buckets.api-anonymous.limit", "120",
            "ratelimiter.buckets.api-anonymous.window", "PT1M",
            "ratelimiter.buckets.reports.limit", "10",
            "ratelimiter.buckets.reports.window", "PT1M"));
    /** Environment variables, which MicroProfile Config reads before properties files (ordinal 300). */
    private final Map<String, String> env = new HashMap<>();

    /**
     * Looks a name up as MicroProfile Config does (Config 3.1, "Default ConfigSources"): environment variables by the
     * exact name, then with each non-alphanumeric character as {@code _}, then that in upper case; then the
     * properties.
     */
    private Optional<String> lookup(String name) {
        String underscored = name.replaceAll("[^A-Za-z0-9]", "_");
        return Optional.ofNullable(env.get(name))
                .or(() -> Optional.ofNullable(env.get(underscored)))
                .or(() -> Optional.ofNullable(env.get(underscored.toUpperCase(Locale.ROOT))))
                .or(() -> Optional.ofNullable(properties.get(name)));
    }

    private LimiterSettings read() {
        List<String> names = new ArrayList<>(properties.keySet());
        names.addAll(env.keySet());
        return SettingsReader.read(this::lookup, names);
    }

    /** Reads as a Config with the profile {@code dev} active: a name under {@code %dev.} or {@code _DEV_} first. */
    private LimiterSettings readWithDevProfile() {
        List<String> names = new ArrayList<>(properties.keySet());
        names.addAll(env.keySet());
        return SettingsReader.read(name -> Optional.ofNullable(properties.get("%dev." + name))
                .or(() -> Optional.ofNullable(env.get("_DEV_" + name.replaceAll("[^A-Za-z0-9]", "_")
                        .toUpperCase(Locale.ROOT))))
                .or(() -> lookup(name)), names);
    }

    private void assertProblem(String... fragments) {
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems())
                        .anySatisfy(problem -> assertThat(problem).contains(fragments)));
    }

    private static Limit perMinute(long limit) {
        return new Limit(limit, Duration.ofMinutes(1));
    }

    @Test
    @DisplayName("no plans: none in the settings, and the plan cache's defaults, a minute and 10000 answers")
    void noPlans() {
        LimiterSettings settings = read();
        assertThat(settings.plans()).isEmpty();
        assertThat(settings.plans("reports")).isEqualTo(BucketPlans.NONE);
        assertThat(settings.planCache()).isEqualTo(new PlanCacheSettings(Duration.ofMinutes(1), 10_000));
    }

    @Test
    @DisplayName("plans=free, pro with each plan's limit and a plan resolver: the bucket under each plan's limit, same "
            + "window and algorithm; only buckets with plans or a resolver are listed")
    void plansAsProperties() {
        properties.put("ratelimiter.buckets.reports.plans", " free , pro ");
        properties.put("ratelimiter.buckets.reports.plans.free.limit", "5");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "100");
        properties.put("ratelimiter.buckets.reports.plan-resolver", " tenantPlans ");

        LimiterSettings settings = read();

        Bucket reports = settings.bucket("reports").orElseThrow();
        assertThat(reports.plan()).isEqualTo(Bucket.NO_PLAN);
        assertThat(settings.plans()).containsOnlyKeys("reports");
        BucketPlans plans = settings.plans("reports");
        assertThat(plans.resolver()).contains("tenantPlans");
        assertThat(plans.plans()).containsOnlyKeys("free", "pro");
        Bucket pro = plans.plan("pro").orElseThrow();
        assertThat(pro).isEqualTo(new Bucket("reports", List.of(perMinute(100)), reports.onOutage(),
                reports.algorithm(), 0, "pro"));
        assertThat(plans.plan("free").orElseThrow().limits()).containsExactly(perMinute(5));
        assertThat(plans.plan("gold")).isEmpty();
        assertThat(settings.buckets()).containsOnlyKeys("api-anonymous", "api-authenticated", "reports");
    }

    @Test
    @DisplayName("a plan resolver without plans is kept (it may give explicit limits); the global filter's buckets take "
            + "plans too")
    void resolverAlone() {
        properties.put("ratelimiter.buckets.reports.plan-resolver", "com.example.ContractLimits");
        properties.put("ratelimiter.buckets.api-authenticated.plans", "gold");
        properties.put("ratelimiter.buckets.api-authenticated.plans.gold.limit", "6000");
        LimiterSettings settings = read();
        assertThat(settings.plans("reports")).isEqualTo(new BucketPlans(Map.of(),
                Optional.of("com.example.ContractLimits")));
        assertThat(settings.plans("api-authenticated").resolver()).isEmpty();
        assertThat(settings.plans("api-authenticated").plan("gold").orElseThrow().limits())
                .containsExactly(perMinute(6000));
    }

    @Test
    @DisplayName("several windows: a plan's limits name exactly the bucket's windows, in any order")
    void severalWindows() {
        properties.put("ratelimiter.buckets.projects.limits", "10/PT1S, 1000/PT1H");
        properties.put("ratelimiter.buckets.projects.plans", "pro");
        properties.put("ratelimiter.buckets.projects.plans.pro.limits", "10000/PT1H, 50/PT1S");
        assertThat(read().plans("projects").plan("pro").orElseThrow().limits()).containsExactly(
                new Limit(50, Duration.ofSeconds(1)), new Limit(10_000, Duration.ofHours(1)));
    }

    @Test
    @DisplayName("several windows: a plan's limit alone, or limits of other windows, fail naming the property and "
            + "the windows to give")
    void severalWindowsRefused() {
        properties.put("ratelimiter.buckets.projects.limits", "10/PT1S, 1000/PT1H");
        properties.put("ratelimiter.buckets.projects.plans", "pro, free");
        properties.put("ratelimiter.buckets.projects.plans.pro.limit", "50");
        properties.put("ratelimiter.buckets.projects.plans.free.limits", "5/PT1S, 100/PT1M");
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems()).containsExactlyInAnyOrder(
                        "ratelimiter.buckets.projects.plans.pro.limit: bucket 'projects' has several windows, and a "
                                + "plan changes limits only; set ratelimiter.buckets.projects.plans.pro.limits with "
                                + "one limit for each of the bucket's windows, as the bucket's own 10/PT1S, "
                                + "1000/PT1H instead",
                        "ratelimiter.buckets.projects.plans.free.limits: plan 'free' of bucket 'projects': a plan "
                                + "changes limits only, so it needs one limit for each of the bucket's windows "
                                + "[1s, 1h], had [1s, 1m]"));
    }

    @Test
    @DisplayName("a plan of a bucket of one window may give its limits as limits, of that window only")
    void oneWindowAsLimits() {
        properties.put("ratelimiter.buckets.reports.plans", "pro,team");
        properties.put("ratelimiter.buckets.reports.plans.pro.limits", "100/PT1M");
        properties.put("ratelimiter.buckets.reports.plans.team.limits", "100/PT1H");
        assertProblem("ratelimiter.buckets.reports.plans.team.limits: plan 'team' of bucket 'reports': a plan "
                + "changes limits only, so it needs one limit for each of the bucket's windows [1m], had [1h]");
        properties.remove("ratelimiter.buckets.reports.plans.team.limits");
        properties.put("ratelimiter.buckets.reports.plans", "pro");
        assertThat(read().plans("reports").plan("pro").orElseThrow().limits()).containsExactly(perMinute(100));
    }

    @Test
    @DisplayName("a token bucket's plan takes a burst; unset, its own shortest limit; on a fixed window it fails")
    void burst() {
        properties.put("ratelimiter.buckets.reports.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.reports.burst", "2");
        properties.put("ratelimiter.buckets.reports.plans", "pro, free");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "100");
        properties.put("ratelimiter.buckets.reports.plans.pro.burst", "20");
        properties.put("ratelimiter.buckets.reports.plans.free.limit", "10");
        BucketPlans plans = read().plans("reports");
        Bucket pro = plans.plan("pro").orElseThrow();
        assertThat(pro.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
        assertThat(pro.burst()).isEqualTo(20);
        assertThat(pro.largestCost()).isEqualTo(20);
        assertThat(plans.plan("free").orElseThrow().burst()).isEqualTo(10);

        properties.remove("ratelimiter.buckets.reports.algorithm");
        properties.remove("ratelimiter.buckets.reports.burst");
        assertProblem("ratelimiter.buckets.reports.plans.pro.burst: bucket 'reports' is a fixed-window, which has no "
                + "burst, and a plan changes limits only; remove it");
    }

    @Test
    @DisplayName("a token bucket's plan too slow to fill fails naming the plan's property, with Bucket's reason")
    void burstTooLarge() {
        properties.put("ratelimiter.buckets.reports.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.reports.window", "P366D");
        properties.put("ratelimiter.buckets.reports.plans", "pro");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "1");
        properties.put("ratelimiter.buckets.reports.plans.pro.burst", "2");
        assertProblem("ratelimiter.buckets.reports.plans.pro.burst: plan 'pro' of bucket 'reports': a token bucket "
                + "of 2 tokens refilled at 1 per PT8784H would take longer than PT8784H to fill; lower the burst");
    }

    @ParameterizedTest(name = "{0} of a {1}: {2} and {3} accepted, {4} and {5} refused")
    @CsvSource({
            "ratelimiter.buckets.reports.plans.pro.limit, fixed-window, 1, 1000000000000, 0, 1000000000001",
            "ratelimiter.buckets.reports.plans.pro.burst, token-bucket, 1, 1000000000000, 0, 1000000000001"})
    @DisplayName("a plan's limit and burst are accepted at both ends of their range and refused just outside, named")
    void rangesAreInclusive(String property, String algorithm, String min, String max, String below, String above) {
        // a token bucket that can hold 10^12 tokens: 3*10^9 a day refill one every 28 microseconds
        properties.put("ratelimiter.buckets.reports.algorithm", algorithm);
        properties.put("ratelimiter.buckets.reports.window", "P1D");
        properties.put("ratelimiter.buckets.reports.plans", "pro");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "3000000000");
        RangeChecks.inclusive(properties, this::read, property, min, max, below, above);
    }

    @Test
    @DisplayName("a declared plan without limit nor limits fails naming the property to set")
    void planWithoutLimits() {
        properties.put("ratelimiter.buckets.reports.plans", "pro");
        assertProblem("ratelimiter.buckets.reports.plans: plan 'pro' is declared without limits; set "
                + "ratelimiter.buckets.reports.plans.pro.limit (the plan's limit per PT1M, the bucket's window)");
        properties.put("ratelimiter.buckets.reports.plans.pro.burst", "3");
        assertProblem("ratelimiter.buckets.reports.plans: plan 'pro' is declared without limits");
    }

    @Test
    @DisplayName("a plan's limit and limits both set fail naming both")
    void limitAndLimits() {
        properties.put("ratelimiter.buckets.reports.plans", "pro");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "100");
        properties.put("ratelimiter.buckets.reports.plans.pro.limits", "100/PT1M");
        assertProblem("ratelimiter.buckets.reports.plans.pro.limit: set either it or "
                + "ratelimiter.buckets.reports.plans.pro.limits, not both");
    }

    @ParameterizedTest(name = "plans={0}")
    @CsvSource(delimiter = '|', value = {
            "none          | 'none' is reserved (the label of a bucket's own limits); give the plan another name",
            "free,explicit | 'explicit' is reserved (the label of a customer's explicit limits from a plan resolver)",
            "Pro           | 'Pro' is not a plan name; a plan's name matches [a-z0-9][a-z0-9-]{0,63}",
            "pro_plus      | 'pro_plus' is not a plan name",
            "-pro          | '-pro' is not a plan name",
            "pro, pro      | 'pro' is listed twice; list each plan once"})
    @DisplayName("a reserved, malformed or repeated plan name fails naming the plans property")
    void badPlanNames(String plans, String problem) {
        properties.put("ratelimiter.buckets.reports.plans", plans);
        properties.put("ratelimiter.buckets.reports.plans.free.limit", "5");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "50");
        assertProblem("ratelimiter.buckets.reports.plans: " + problem);
    }

    @Test
    @DisplayName("a plan's property for a plan the bucket does not declare fails naming it; it is no bucket "
            + "'reports.plans.gold'")
    void undeclaredPlan() {
        properties.put("ratelimiter.buckets.reports.plans", "pro");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "100");
        properties.put("ratelimiter.buckets.reports.plans.gold.limit", "1000");
        properties.put("ratelimiter.buckets.exports.plans.pro.limit", "1000");
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems()).containsExactlyInAnyOrder(
                        "ratelimiter.buckets.reports.plans.gold.limit: bucket 'reports' declares no plan 'gold'; add "
                                + "the plan to ratelimiter.buckets.reports.plans, or remove the property",
                        "ratelimiter.buckets.exports.plans.pro.limit: bucket 'exports' declares no plan 'pro'; add "
                                + "the plan to ratelimiter.buckets.exports.plans, or remove the property"));
    }

    @ParameterizedTest(name = "plans.pro.{0}")
    @ValueSource(strings = {"window", "algorithm", "on-outage", "mode", "plan-resolver", "limt", "limit.extra"})
    @DisplayName("a plan's window, algorithm or any other leaf fails naming the property: a plan changes limits only")
    void limitsOnly(String leaf) {
        properties.put("ratelimiter.buckets.reports.plans", "pro");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "100");
        properties.put("ratelimiter.buckets.reports.plans.pro." + leaf, "PT1H");
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems()).singleElement().asString()
                        .startsWith("ratelimiter.buckets.reports.plans.pro." + leaf + ": a plan changes limits only: "
                                + "set its limit (a bucket of one window), limits or burst (a token bucket)"));
    }

    @Test
    @DisplayName("a plan's window names the bucket's own window to set instead")
    void windowIsTheBuckets() {
        properties.put("ratelimiter.buckets.reports.plans", "pro");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "100");
        properties.put("ratelimiter.buckets.reports.plans.pro.window", "PT1H");
        assertProblem("ratelimiter.buckets.reports.plans.pro.window: a plan changes limits only: set its limit (a "
                + "bucket of one window), limits or burst (a token bucket); window is the bucket's own, "
                + "ratelimiter.buckets.reports.window, the same for every plan");
    }

    @Test
    @DisplayName("a plan's limit that is no number or out of range fails naming it")
    void badPlanLimit() {
        properties.put("ratelimiter.buckets.reports.plans", "pro, team");
        properties.put("ratelimiter.buckets.reports.plans.pro.limit", "lots");
        properties.put("ratelimiter.buckets.reports.plans.team.limits", "100");
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems()).containsExactlyInAnyOrder(
                        "ratelimiter.buckets.reports.plans.pro.limit: 'lots' is not a whole number from 1 to "
                                + "1000000000000",
                        "ratelimiter.buckets.reports.plans.team.limits: '100' is not <limit>/<window>; write for "
                                + "example 10/PT1S, 1000/PT1H"));
    }

    @Test
    @DisplayName("environment form: RATELIMITER_BUCKETS_REPORTS_PLANS=free,pro, each plan's _LIMIT, _LIMITS and "
            + "_BURST, _PLAN_RESOLVER; no bucket reports-plans-pro")
    void plansAsEnvironmentVariables() {
        properties.remove("ratelimiter.buckets.reports.limit");
        properties.remove("ratelimiter.buckets.reports.window");
        env.put("RATELIMITER_BUCKETS_REPORTS_LIMIT", "10");
        env.put("RATELIMITER_BUCKETS_REPORTS_WINDOW", "PT1M");
        env.put("RATELIMITER_BUCKETS_REPORTS_ALGORITHM", "token-bucket");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS", "free,pro");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_FREE_LIMITS", "5/PT1M");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_LIMIT", "100");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_BURST", "30");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLAN_RESOLVER", "tenantPlans");

        LimiterSettings settings = read();

        assertThat(settings.buckets()).containsOnlyKeys("api-anonymous", "api-authenticated", "reports");
        BucketPlans plans = settings.plans("reports");
        assertThat(plans.resolver()).contains("tenantPlans");
        assertThat(plans.plan("free").orElseThrow().limits()).containsExactly(perMinute(5));
        Bucket pro = plans.plan("pro").orElseThrow();
        assertThat(pro.limits()).containsExactly(perMinute(100));
        assertThat(pro.burst()).isEqualTo(30);
        assertThat(pro.plan()).isEqualTo("pro");
    }

    @Test
    @DisplayName("environment form of a bucket with a dash (API_AUTHENTICATED) and plans with a dash (PRO_PLUS beside "
            + "PRO)")
    void dashesInEnvironmentVariables() {
        env.put("RATELIMITER_BUCKETS_API_AUTHENTICATED_PLANS", "gold");
        env.put("RATELIMITER_BUCKETS_API_AUTHENTICATED_PLANS_GOLD_LIMIT", "6000");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS", "pro-plus,pro");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_LIMIT", "100");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_PLUS_LIMIT", "1000");

        LimiterSettings settings = read();

        assertThat(settings.buckets()).containsOnlyKeys("api-anonymous", "api-authenticated", "reports");
        assertThat(settings.plans("api-authenticated").plan("gold").orElseThrow().limits())
                .containsExactly(perMinute(6000));
        assertThat(settings.plans("reports").plan("pro").orElseThrow().limits()).containsExactly(perMinute(100));
        assertThat(settings.plans("reports").plan("pro-plus").orElseThrow().limits())
                .containsExactly(perMinute(1000));
    }

    @Test
    @DisplayName("an environment variable for a plan the bucket does not declare fails naming it, and is never read "
            + "as a bucket called reports-plans-gold")
    void undeclaredPlanInEnvironment() {
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS", "pro");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_LIMIT", "100");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_LIMIT", "1000");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_WINDOW", "PT1M");
        env.put("RATELIMITER_BUCKETS_EXPORTS_PLANS_PRO_PLUS_LIMITS", "5/PT1M");
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems()).containsExactlyInAnyOrder(
                        "RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_LIMIT (ratelimiter.buckets.reports.plans.gold.limit): "
                                + "bucket 'reports' declares no plan 'gold'; add the plan to "
                                + "ratelimiter.buckets.reports.plans, or remove the property (an environment variable "
                                + "with _PLANS_ after the bucket's name always sets a plan: a bucket whose name holds "
                                + "'-plans-' is configured in properties form)",
                        "RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_WINDOW (ratelimiter.buckets.reports.plans.gold.window)"
                                + ": a plan changes limits only: set its limit (a bucket of one window), limits or "
                                + "burst (a token bucket); window is the bucket's own, "
                                + "ratelimiter.buckets.reports.window, the same for every plan",
                        "RATELIMITER_BUCKETS_EXPORTS_PLANS_PRO_PLUS_LIMITS "
                                + "(ratelimiter.buckets.exports.plans.pro-plus.limits): bucket 'exports' declares no "
                                + "plan 'pro-plus'; add the plan to ratelimiter.buckets.exports.plans, or remove the "
                                + "property (an environment variable with _PLANS_ after the bucket's name always sets "
                                + "a plan: a bucket whose name holds '-plans-' is configured in properties form)"));
    }

    @Test
    @DisplayName("a declared plan's environment variable of a leaf other than LIMIT, LIMITS or BURST fails naming it")
    void limitsOnlyInEnvironment() {
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS", "pro-plus");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_PLUS_LIMIT", "100");
        env.put("RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_PLUS_ALGORITHM", "sliding-window");
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems()).containsExactly(
                        "RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_PLUS_ALGORITHM "
                                + "(ratelimiter.buckets.reports.plans.pro-plus.algorithm): a plan changes limits only: "
                                + "set its limit (a bucket of one window), limits or burst (a token bucket); "
                                + "algorithm is the bucket's own, ratelimiter.buckets.reports.algorithm, the same for "
                                + "every plan"));
    }

    @Test
    @DisplayName("environment variables of a bucket named like x-plans (RATELIMITER_BUCKETS_TEAM_PLANS_LIMIT, "
            + "_ON_OUTAGE, _PLAN_RESOLVER) are that bucket's own")
    void bucketEndingInPlans() {
        env.put("RATELIMITER_BUCKETS_TEAM_PLANS_LIMIT", "7");
        env.put("RATELIMITER_BUCKETS_TEAM_PLANS_WINDOW", "PT1H");
        env.put("RATELIMITER_BUCKETS_TEAM_PLANS_ON_OUTAGE", "fail-open");
        env.put("RATELIMITER_BUCKETS_TEAM_PLANS_FAILURE_STATUSES", "401");
        env.put("RATELIMITER_BUCKETS_TEAM_PLANS_PLAN_RESOLVER", "teamPlans");
        LimiterSettings settings = read();
        assertThat(settings.buckets()).containsOnlyKeys("api-anonymous", "api-authenticated", "reports",
                "team-plans");
        assertThat(settings.bucket("team-plans")).contains(Bucket.of("team-plans", 7, Duration.ofHours(1),
                dev.ratelimiter.OutagePolicy.FAIL_OPEN));
        assertThat(settings.plans()).containsOnlyKeys("team-plans");
        assertThat(settings.plans("team-plans")).isEqualTo(new BucketPlans(Map.of(), Optional.of("teamPlans")));
    }

    @Test
    @DisplayName("plans under the active profile apply, in both forms; another profile's undeclared plan is ignored, "
            + "the active one's fails with its profile named")
    void plansUnderProfiles() {
        properties.put("%dev.ratelimiter.buckets.reports.plans", "pro, team");
        properties.put("%dev.ratelimiter.buckets.reports.plans.pro.limit", "100");
        env.put("_DEV_RATELIMITER_BUCKETS_REPORTS_PLANS_TEAM_LIMIT", "200");
        properties.put("%prod.ratelimiter.buckets.reports.plans.gold.limit", "1000");
        env.put("_PROD_RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_LIMIT", "1000");

        BucketPlans plans = readWithDevProfile().plans("reports");
        assertThat(plans.plan("pro").orElseThrow().limits()).containsExactly(perMinute(100));
        assertThat(plans.plan("team").orElseThrow().limits()).containsExactly(perMinute(200));
        assertThat(read().plans()).as("no profile active: no plans").isEmpty();

        properties.remove("%prod.ratelimiter.buckets.reports.plans.gold.limit");
        env.remove("_PROD_RATELIMITER_BUCKETS_REPORTS_PLANS_GOLD_LIMIT");
        properties.put("%dev.ratelimiter.buckets.reports.plans.gold.limit", "1000");
        assertThatThrownBy(this::readWithDevProfile).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems()).containsExactly(
                        "%dev.ratelimiter.buckets.reports.plans.gold.limit: bucket 'reports' declares no plan "
                                + "'gold'; add the plan to ratelimiter.buckets.reports.plans, or remove the "
                                + "property"));
        assertThat(read().plans()).as("no profile active: the dev profile's mistake does not apply").isEmpty();
    }

    @Test
    @DisplayName("a name of another profile for the property the active profile's undeclared plan sets is named "
            + "beside it, in one problem")
    void otherProfileNamedBeside() {
        properties.put("%dev.ratelimiter.buckets.reports.plans.gold.limit", "1000");
        properties.put("%prod.ratelimiter.buckets.reports.plans.gold.limit", "1000");
        assertThatThrownBy(this::readWithDevProfile).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(((ConfigurationException) e).problems()).containsExactly(
                        "%dev.ratelimiter.buckets.reports.plans.gold.limit or "
                                + "%prod.ratelimiter.buckets.reports.plans.gold.limit: bucket 'reports' declares no "
                                + "plan 'gold'; add the plan to ratelimiter.buckets.reports.plans, or remove the "
                                + "property"));
    }

    @Test
    @DisplayName("the plan cache: cache-ttl and cache-max-entries read as properties and as environment variables")
    void planCache() {
        properties.put("ratelimiter.plans.cache-ttl", "PT5M");
        properties.put("ratelimiter.plans.cache-max-entries", "500");
        assertThat(read().planCache()).isEqualTo(new PlanCacheSettings(Duration.ofMinutes(5), 500));
        env.put("RATELIMITER_PLANS_CACHE_TTL", "PT0S");
        env.put("RATELIMITER_PLANS_CACHE_MAX_ENTRIES", "1");
        assertThat(read().planCache()).isEqualTo(new PlanCacheSettings(Duration.ZERO, 1));
    }
}
