package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import dev.ratelimiter.internal.core.settings.UnknownProperties;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.StoreConfig;
import dev.ratelimiter.testing.RangeChecks;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code ratelimiter.postgres.*} as the PostgreSQL store reads it ({@link PostgresSettings#read}): defaults, ranges
 * and error texts, each problem naming its property (the cases SettingsReaderTest held before the store owned its
 * settings).
 */
class PostgresSettingsTest {

    private final Map<String, String> properties = new HashMap<>();

    private PostgresSettings read() {
        StoreConfig config = new SubtreeConfig("postgres", name -> Optional.ofNullable(properties.get(name)));
        PostgresSettings settings = PostgresSettings.read(config);
        config.check();
        return settings;
    }

    private void assertProblem(String... fragments) {
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains(fragments));
    }

    @Test
    @DisplayName("postgres defaults: table rate_limit_counters, 100 ms, sweep every 5 minutes, pool 16")
    void postgresDefaults() {
        PostgresSettings postgres = read();
        assertThat(postgres.table()).isEqualTo("rate_limit_counters");
        assertThat(postgres.timeout()).isEqualTo(Duration.ofMillis(100));
        assertThat(postgres.sweepInterval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(postgres.poolSize()).isEqualTo(16);
        assertThat(postgres.dataSource()).isEmpty();
        assertThat(postgres.pgbouncer()).isFalse();
    }

    @Test
    @DisplayName("a table name that is not an identifier, and a URL that is not PostgreSQL's, fail naming the property")
    void postgresProblems() {
        properties.put("ratelimiter.postgres.table", "counters; DROP TABLE users");
        properties.put("ratelimiter.postgres.url", "jdbc:mysql://db/app");
        assertProblem("ratelimiter.postgres.table", "ratelimiter.postgres.url: must start with jdbc:postgresql:");
    }

    @Test
    @DisplayName("a schema-qualified table is accepted")
    void postgresSchemaTable() {
        properties.put("ratelimiter.postgres.table", "limits.rate_limit_counters");
        assertThat(read().table()).isEqualTo("limits.rate_limit_counters");
    }

    @Test
    @DisplayName("issue 14: a huge postgres.timeout fails naming the property and its range, not as ArithmeticException")
    void hugeTimeoutFails() {
        properties.put("ratelimiter.postgres.timeout", "PT9999999999999999S");
        assertProblem("ratelimiter.postgres.timeout: 'PT9999999999999999S' is out of range from PT0.001S to PT10M");
    }

    @ParameterizedTest(name = "{0}: {1} and {2} accepted, {3} and {4} refused")
    @CsvSource({
            "ratelimiter.postgres.timeout,          PT0.001S,  PT10M,         PT0S,        PT10M0.001S",
            "ratelimiter.postgres.sweep-interval,   PT1S,      P1D,           PT-1S,       P2D",
            "ratelimiter.postgres.pool-size,        1,         1024,          -1,          1025"})
    @DisplayName("every number and duration is accepted at both ends of its range and refused just outside, named")
    void rangesAreInclusive(String property, String min, String max, String below, String above) {
        RangeChecks.inclusive(properties, this::read, property, min, max, below, above);
    }

    @Test
    @DisplayName("every property the store declares is known to the unknown-property warnings, and is what it reads")
    void declaredPropertiesAreKnown() {
        List<String> names = new PostgresStoreProvider().propertyNames().stream()
                .map(name -> "ratelimiter.postgres." + name).toList();
        assertThat(UnknownProperties.warnings(names)).isEmpty();
        List<String> lookedUp = new java.util.ArrayList<>();
        PostgresSettings.read(new SubtreeConfig("postgres", name -> {
            lookedUp.add(name);
            return Optional.empty();
        }));
        assertThat(lookedUp).containsExactlyInAnyOrderElementsOf(names);
    }

    @Property(tries = 1_000)
    @Label("one property set to anything: settings within the documented ranges, or a ConfigurationException naming "
            + "that property")
    void anyValueOfOneProperty(@ForAll("names") String property, @ForAll("values") String value) {
        properties.clear();
        properties.put("ratelimiter.postgres." + property, value);
        PostgresSettings settings;
        try {
            settings = read();
        } catch (ConfigurationException e) {
            assertThat(e.problems()).isNotEmpty().allSatisfy(problem ->
                    assertThat(problem).startsWith("ratelimiter.postgres." + property + ": "));
            return;
        }
        assertThat(settings.timeout()).isBetween(Duration.ofMillis(1), Duration.ofMinutes(10));
        assertThat(settings.poolSize()).isBetween(1, 1_024);
        assertThat(settings.sweepInterval()).isBetween(Duration.ofSeconds(1), Duration.ofDays(1));
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.of(List.copyOf(PostgresSettings.PROPERTY_NAMES));
    }

    @Provide
    Arbitrary<String> values() {
        return Arbitraries.oneOf(Arbitraries.longs().map(String::valueOf),
                Arbitraries.of("PT0S", "PT1S", "P1D", "P2D", "PT9999999999999999S", "-PT1S", "pt1s", "true", "TRUE",
                        "yes", "", " ", "jdbc:postgresql://db/app", "jdbc:mysql://db/app", "a.b", "A", "x;y",
                        "limits.rate_limit_counters"),
                Arbitraries.strings().ofMaxLength(20));
    }
}
