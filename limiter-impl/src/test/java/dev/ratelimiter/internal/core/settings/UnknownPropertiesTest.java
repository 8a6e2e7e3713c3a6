package dev.ratelimiter.internal.core.settings;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class UnknownPropertiesTest {

    @ParameterizedTest(name = "{0}: did you mean {1}?")
    @CsvSource({
            "ratelimiter.buckets.login.limt,          ratelimiter.buckets.login.limit",
            "ratelimiter.buckets.password-reset.windw, ratelimiter.buckets.password-reset.window",
            "ratelimiter.buckets.login.on_outage,     ratelimiter.buckets.login.on-outage",
            "ratelimiter.buckets.login.mod,           ratelimiter.buckets.login.mode",
            "ratelimiter.bucket.login.limit,          ratelimiter.buckets.login.limit",
            "ratelimiter.test-map.dwn,                ratelimiter.test-map.down",
            "ratelimiter.breaker.failures-threshold,  ratelimiter.breaker.failure-threshold",
            "ratelimiter.trusted-proxy,               ratelimiter.trusted-proxies",
            "ratelimiter.buckets.login,               ratelimiter.buckets.login.limit",
            "ratelimiter.buckets.projects.limts,      ratelimiter.buckets.projects.limits",
            "ratelimiter.buckets.reports.plan,        ratelimiter.buckets.reports.plans",
            "ratelimiter.buckets.reports.plan-resolvr, ratelimiter.buckets.reports.plan-resolver",
            "ratelimiter.buckets.reports.plans.pro.limt, ratelimiter.buckets.reports.plans.pro.limit",
            "ratelimiter.buckets.reports.plans.pro-plus.burts, ratelimiter.buckets.reports.plans.pro-plus.burst",
            "ratelimiter.buckets.reports.plans.pro.limmits, ratelimiter.buckets.reports.plans.pro.limits",
            "ratelimiter.plans.cache-tl,              ratelimiter.plans.cache-ttl",
            "ratelimiter.plan.cache-max-entries,      ratelimiter.plans.cache-max-entries"})
    @DisplayName("an unknown ratelimiter.* name is reported with the nearest known property, its bucket kept")
    void nearestKnownProperty(String typo, String nearest) {
        assertThat(UnknownProperties.warnings(List.of(typo)))
                .containsExactly("Unknown property " + typo + " is ignored; did you mean " + nearest + "?");
    }

    @Test
    @DisplayName("every property of the configuration reference, for any bucket, is known")
    void referenceIsKnown() {
        List<String> names = new ArrayList<>(SettingsReaderPropertyTest.PROPERTIES);
        names.add("ratelimiter.buckets.password-reset.on-outage");
        names.add("ratelimiter.buckets.projects.limits");
        names.add("ratelimiter.buckets.password-reset.mode");
        names.add("ratelimiter.buckets.api-authenticated.plans");
        names.add("ratelimiter.buckets.api-authenticated.plans.gold.limits");
        names.add("ratelimiter.buckets.reports.plans.pro-plus.burst");
        names.add("ratelimiter.buckets.reports.plan-resolver");
        names.add("%dev.ratelimiter.buckets.reports.plans.pro.limit");
        assertThat(UnknownProperties.warnings(names)).isEmpty();
    }

    @Test
    @DisplayName("every property the settings reader and the Valkey store's settings look up is known")
    void everyPropertyReadIsKnown() {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.api-authenticated.limit", "600",
                "ratelimiter.buckets.api-authenticated.window", "PT1M",
                "ratelimiter.buckets.api-anonymous.limit", "120",
                "ratelimiter.buckets.api-anonymous.window", "PT1M"));
        List<String> lookedUp = new ArrayList<>();
        SettingsReader.read(name -> {
            lookedUp.add(name);
            return Optional.ofNullable(properties.get(name));
        }, properties.keySet());
        // The stores read their own subtrees (ValkeySettingsTest and PostgresSettingsTest check those names).
        List<String> known = UnknownProperties.KNOWN.stream()
                .filter(name -> !name.startsWith("ratelimiter.postgres.") && !name.startsWith("ratelimiter.valkey."))
                .toList();
        assertThat(lookedUp).hasSizeGreaterThan(known.size());
        assertThat(UnknownProperties.warnings(lookedUp)).isEmpty();
        assertThat(lookedUp).containsAll(known);
    }

    @Test
    @DisplayName("a plan's property other than limit, limits or burst is reported, though the bucket has it")
    void planLeafOtherThanLimits() {
        assertThat(UnknownProperties.warnings(List.of("ratelimiter.buckets.reports.plans.pro.window",
                "%dev.ratelimiter.buckets.reports.plans.pro.algorithm"))).containsExactly(
                "Unknown property ratelimiter.buckets.reports.plans.pro.window is ignored; did you mean "
                        + "ratelimiter.buckets.reports.plans.pro.limit?",
                "Unknown property %dev.ratelimiter.buckets.reports.plans.pro.algorithm is ignored; did you mean "
                        + "%dev.ratelimiter.buckets.reports.plans.pro.limit?");
    }

    @Test
    @DisplayName("environment variable names (also under a profile) and other prefixes are not checked")
    void environmentNamesNotChecked() {
        assertThat(UnknownProperties.warnings(List.of("RATELIMITER_BUCKETS_LOGIN_LIMT", "RATELIMITER_BACKEND",
                "RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_LIMT",
                "_DEV_RATELIMITER_BUCKETS_LOGIN_LIMT", "%dev.quarkus.http.port", "quarkus.http.port",
                "ratelimiterx"))).isEmpty();
    }

    @Test
    @DisplayName("known properties under a profile, active or not, are not reported")
    void knownUnderProfile() {
        assertThat(UnknownProperties.warnings(List.of("%dev.ratelimiter.buckets.login.limit",
                "%dev.ratelimiter.buckets.login.window", "%test.ratelimiter.backend",
                "%prod.ratelimiter.test-map.down", "%dev,test.ratelimiter.breaker.max-backoff"))).isEmpty();
    }

    @ParameterizedTest(name = "{0}: did you mean {1}?")
    @CsvSource(delimiter = '|', value = {
            "%dev.ratelimiter.buckets.login.limt | %dev.ratelimiter.buckets.login.limit",
            "%prod.ratelimiter.backnd            | %prod.ratelimiter.backend",
            "%dev,test.ratelimiter.test-map.dwn  | %dev,test.ratelimiter.test-map.down"})
    @DisplayName("an unknown name under a profile is reported with its profile kept")
    void typoUnderProfile(String typo, String nearest) {
        assertThat(UnknownProperties.warnings(List.of(typo)))
                .containsExactly("Unknown property " + typo + " is ignored; did you mean " + nearest + "?");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"ratelimiter.valkey.url, dev.ratelimiter:limiter-store-valkey",
            "ratelimiter.postgres.timout, dev.ratelimiter:limiter-store-postgres",
            "%prod.ratelimiter.valkey.mode, dev.ratelimiter:limiter-store-valkey"})
    @DisplayName("a property of the library's own store whose module is absent names the artifact, not a typo")
    void propertyOfAnAbsentStoreModule(String name, String artifact) {
        assertThat(UnknownProperties.warnings(List.of(name))).containsExactly("Property " + name + " is ignored: it "
                + "belongs to a store whose module is not on the class path (" + artifact + "); add that dependency "
                + "to use the store, or remove the property");
    }
}
