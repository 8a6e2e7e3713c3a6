package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.ConfigurationException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.math.BigInteger;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The settings reader, fed random text, numbers and durations for every property of docs/reference.md: it returns
 * settings within the documented ranges or throws a {@link ConfigurationException} whose every line names the property
 * that was set, and never throws anything else.
 */
public class SettingsReaderPropertyTest {

    /**
     * Every property of the table ({@link PropertyTable}, which the reference is checked against) with {@code login}
     * for any bucket and {@code pro} for any plan, and the global filter's buckets; {@code ratelimiter.<store>.*} is the stores' own
     * (PostgresSettingsTest, ValkeySettingsPropertyTest).
     */
    static final List<String> PROPERTIES = Stream.concat(
            PropertyTable.ALL.stream().map(property -> property.fullName().replace("<name>", "login")
                    .replace("<plan>", "pro")),
            Stream.of("ratelimiter.buckets.api-authenticated.limit", "ratelimiter.buckets.api-authenticated.window",
                    "ratelimiter.buckets.api-anonymous.limit", "ratelimiter.buckets.api-anonymous.window"))
            .toList();

    private static Map<String, String> baseline() {
        return new HashMap<>(Map.of(
                "ratelimiter.buckets.api-authenticated.limit", "600",
                "ratelimiter.buckets.api-authenticated.window", "PT1M",
                "ratelimiter.buckets.api-anonymous.limit", "120",
                "ratelimiter.buckets.api-anonymous.window", "PT1M",
                "ratelimiter.buckets.login.limit", "5",
                "ratelimiter.buckets.login.window", "PT15M"));
    }

    @Property(tries = 1_000)
    @Label("one property set to anything: valid settings, or a ConfigurationException naming that property")
    void anyValueOfOneProperty(@ForAll("properties") String property, @ForAll("values") String value) {
        Map<String, String> properties = baseline();
        properties.put(property, value);
        assertReadNamesOnly(properties, List.of(property));
    }

    @Property(tries = 300)
    @Label("every property set to anything at once: valid settings, or each problem names a property")
    void anyValuesOfAllProperties(@ForAll("allValues") List<String> values) {
        Map<String, String> properties = baseline();
        for (int i = 0; i < PROPERTIES.size(); i++) {
            properties.put(PROPERTIES.get(i), values.get(i));
        }
        assertReadNamesOnly(properties, PROPERTIES);
    }

    private static void assertReadNamesOnly(Map<String, String> properties, List<String> named) {
        LimiterSettings settings;
        try {
            settings = SettingsReader.read(name -> Optional.ofNullable(properties.get(name)), properties.keySet());
        } catch (ConfigurationException e) {
            assertThat(e.problems()).isNotEmpty().allSatisfy(problem ->
                    assertThat(named).as("the property named by: " + problem)
                            .anySatisfy(property -> assertThat(problem).startsWith(property)));
            return;
        }
        assertWithinRanges(settings);
    }

    /** The documented ranges, which keep every sum the limiter makes from them far from overflow. */
    private static void assertWithinRanges(LimiterSettings settings) {
        assertThat(settings.buckets().values()).allSatisfy(bucket -> {
            assertThat(bucket.limit()).isBetween(1L, Bucket.MAX_LIMIT);
            assertThat(bucket.window()).isBetween(Duration.ofSeconds(1), Duration.ofDays(366));
        });
        assertThat(settings.ipv6PrefixLength()).isBetween(1, 128);
        assertThat(settings.memoryMaxKeys()).isBetween(1, 100_000_000);
        assertThat(settings.memorySweepInterval()).isBetween(Duration.ofSeconds(1), Duration.ofDays(1));
        assertThat(settings.breaker().failureThreshold()).isBetween(1, 1_000);
        assertThat(settings.breaker().successThreshold()).isBetween(1, 1_000);
        assertThat(settings.breaker().initialBackoff()).isBetween(Duration.ofMillis(1), Duration.ofHours(1));
        assertThat(settings.breaker().maxBackoff()).isBetween(settings.breaker().initialBackoff(), Duration.ofHours(1));
        assertThat(settings.plans().values()).allSatisfy(plans -> assertThat(plans.plans().values())
                .allSatisfy(plan -> assertThat(plan.smallestLimit()).isBetween(1L, Bucket.MAX_LIMIT)));
        assertThat(settings.planCache().ttl()).isBetween(Duration.ZERO, Duration.ofHours(1));
        assertThat(settings.planCache().maxEntries()).isBetween(1, 10_000_000);
    }

    @Provide
    Arbitrary<String> properties() {
        return Arbitraries.of(PROPERTIES);
    }

    @Provide
    Arbitrary<List<String>> allValues() {
        return values().list().ofSize(PROPERTIES.size());
    }

    /**
     * Text of every shape a property might be given: junk, numbers of any size, durations, lists, URLs; also for
     * the stores' own settings tests.
     */
    @Provide
    public Arbitrary<String> values() {
        Arbitrary<String> numbers = Arbitraries.oneOf(
                Arbitraries.longs().map(String::valueOf),
                Arbitraries.bigIntegers().between(BigInteger.TEN.pow(30).negate(), BigInteger.TEN.pow(30))
                        .map(String::valueOf),
                Arbitraries.longs().between(-2, 2_000).map(String::valueOf));
        Arbitrary<String> durations = Combinators.combine(
                Arbitraries.of("P", "PT", "-PT", "P-", "pt"),
                Arbitraries.oneOf(Arbitraries.longs().map(String::valueOf),
                        Arbitraries.longs().between(0, 1_000).map(String::valueOf),
                        Arbitraries.bigIntegers().between(BigInteger.ZERO, BigInteger.TEN.pow(25)).map(String::valueOf),
                        Arbitraries.doubles().between(0, 1e6).ofScale(4).map(String::valueOf)),
                Arbitraries.of("S", "M", "H", "D", "", "MS")).as((prefix, amount, unit) -> prefix + amount + unit);
        Arbitrary<String> words = Arbitraries.of("true", "false", "TRUE", "yes", "", " ", "memory", "valkey",
                "postgres", "sentinel", "cluster", "standalone", "fail-open", "fail_closed", "fallback", "auto",
                "micrometer", "OpenTelemetry", "none", "microprofile ",
                "redis://h:1", "rediss://u:p@h:6379/0", "jdbc:postgresql://db/app", "host:6379, other:0",
                "10.0.0.0/8, ::1", "/api/, v2", "rl{x}:", "${RATE_LIMIT_KEY_SECRET}", "schema.table_1",
                "/etc/passwd", "a\u0000b");
        return Arbitraries.oneOf(numbers, durations, words, Arbitraries.strings().ofMaxLength(40));
    }
}
