package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.internal.core.settings.PropertyTable.Property;
import dev.ratelimiter.internal.core.settings.PropertyTable.Type;
import dev.ratelimiter.testing.ReferenceProperties;
import dev.ratelimiter.testing.ReferenceProperties.Row;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one table of the library's properties against the configuration reference (docs/reference.md#properties), and
 * against what reads and warns: a property added, renamed, given another default or range on one side only fails
 * here. The stores' subtrees are checked in their modules.
 */
class PropertyTableTest {

    private static final Map<String, Row> REFERENCE = ReferenceProperties.read();
    /** The reference's rows of the library's own stores, whose names their modules check. */
    private static final Set<String> STORE_SUBTREES = Set.of("ratelimiter.valkey.", "ratelimiter.postgres.");

    @Test
    @DisplayName("every property of the table is in the reference, with the same default")
    void tableInReference() {
        for (Property property : PropertyTable.ALL) {
            assertThat(REFERENCE).as("the reference's rows").containsKey(property.fullName());
            String written = REFERENCE.get(property.fullName()).defaultValue();
            if (property.defaultValue().isPresent()) {
                assertThat(written).as("%s's default", property.fullName())
                        .isEqualTo("`" + property.defaultValue().get() + "`");
            } else {
                assertThat(written).as("%s has no default", property.fullName()).isIn("—", "(unset)", "(empty)");
            }
        }
    }

    @Test
    @DisplayName("every number and duration of the table has the reference's range, as a startup error states it")
    void rangesInReference() {
        List<Property> ranged = PropertyTable.ALL.stream()
                .filter(property -> property.type() == Type.WHOLE_NUMBER || property.type() == Type.DURATION)
                .toList();
        assertThat(ranged).hasSizeGreaterThan(5);
        for (Property property : ranged) {
            assertThat(REFERENCE.get(property.fullName()).meaning().replace("`", ""))
                    .as("%s's range", property.fullName()).contains(property.range().toString());
        }
    }

    @Test
    @DisplayName("every ratelimiter.* row of the reference is a row of the table, a bucket's property or a store's")
    void referenceInTable() {
        Set<String> table = PropertyTable.ALL.stream().map(Property::fullName).collect(Collectors.toSet());
        for (String name : REFERENCE.keySet()) {
            if (STORE_SUBTREES.stream().anyMatch(name::startsWith)) {
                continue;
            }
            if (table.contains(name)) {
                continue;
            }
            if (name.startsWith(PropertyTable.BUCKETS)) {
                // the global filter's buckets, given by the library's own microprofile-config.properties
                assertThat(PropertyTable.BUCKET_PROPERTIES).as(name)
                        .contains(name.substring(name.lastIndexOf('.') + 1));
            } else {
                assertThat(table).as("the table's names").contains(name);
            }
        }
    }

    @Test
    @DisplayName("the unknown-property warning knows exactly the table's names that are no bucket's")
    void unknownPropertiesKnowTheTable() {
        assertThat(UnknownProperties.KNOWN).containsExactlyInAnyOrderElementsOf(PropertyTable.ALL.stream()
                .filter(property -> !property.ofBucket()).map(Property::fullName).toList());
        assertThat(PropertyTable.BUCKET_PROPERTIES).containsExactly("limit", "window", "limits", "on-outage",
                "mode", "algorithm", "burst", "concurrency", "lease", "quota-lease-percent", "quota-lease-idle", "max-wait",
                "max-waiting", "zone",
                "allow", "deny", "block", "block-max",
                "block-forget-after", "upstream-hold-max", "count", "failure-exceptions", "failure-statuses", "plans",
                "plan-resolver");
        assertThat(PropertyTable.PLAN_PROPERTIES).containsExactly("limit", "limits", "burst");
    }

    @Test
    @DisplayName("the defaults the reader applies are the table's: nothing set reads as the table says")
    void defaultsAreTheTables() {
        Map<String, String> globalBuckets = Map.of(
                "ratelimiter.buckets.api-authenticated.limit", "600",
                "ratelimiter.buckets.api-authenticated.window", "PT1M",
                "ratelimiter.buckets.api-anonymous.limit", "120",
                "ratelimiter.buckets.api-anonymous.window", "PT1M");
        LimiterSettings settings = SettingsReader.read(name -> Optional.ofNullable(globalBuckets.get(name)),
                globalBuckets.keySet(), StoreProviderRegistry.of(List.of()));
        assertThat(settings.enabled()).isEqualTo(Boolean.parseBoolean(text(PropertyTable.ENABLED)));
        assertThat(settings.backend()).isEqualTo(text(PropertyTable.BACKEND));
        assertThat(settings.ipv6PrefixLength()).isEqualTo(Integer.parseInt(text(PropertyTable.IPV6_PREFIX_LENGTH)));
        assertThat(settings.memoryMaxKeys()).isEqualTo(Integer.parseInt(text(PropertyTable.MEMORY_MAX_KEYS)));
        assertThat(settings.memorySweepInterval()).hasToString(text(PropertyTable.MEMORY_SWEEP_INTERVAL));
        assertThat(settings.denyCache().maxAge()).hasToString(text(PropertyTable.DENY_CACHE_MAX_AGE));
        assertThat(settings.pathPrefixes()).containsExactly(text(PropertyTable.API_PATH_PREFIXES));
        assertThat(settings.metricsSystem()).isEqualTo(MetricsSystem.parse(text(PropertyTable.METRICS_SYSTEM))
                .orElseThrow());
        assertThat(settings.planCache()).as("PlanCacheSettings.DEFAULT, which tests use")
                .isEqualTo(PlanCacheSettings.DEFAULT)
                .isEqualTo(new PlanCacheSettings(Duration.parse(text(PropertyTable.PLANS_CACHE_TTL)),
                        Integer.parseInt(text(PropertyTable.PLANS_CACHE_MAX_ENTRIES))));
        assertThat(settings.plans()).isEmpty();
        assertThat(settings.breaker()).as("BreakerSettings.DEFAULTS, which tests and the benchmark use")
                .isEqualTo(BreakerSettings.DEFAULTS)
                .isEqualTo(new BreakerSettings(Integer.parseInt(text(PropertyTable.BREAKER_FAILURE_THRESHOLD)),
                        Duration.parse(text(PropertyTable.BREAKER_INITIAL_BACKOFF)),
                        Duration.parse(text(PropertyTable.BREAKER_MAX_BACKOFF)),
                        Integer.parseInt(text(PropertyTable.BREAKER_SUCCESS_THRESHOLD))));
    }

    private static String text(Property property) {
        return property.defaultValue().orElseThrow();
    }
}
