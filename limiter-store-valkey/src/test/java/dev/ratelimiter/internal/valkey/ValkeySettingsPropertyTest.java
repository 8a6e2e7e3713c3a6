package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.internal.core.settings.SettingsReaderPropertyTest;
import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import dev.ratelimiter.spi.ConfigurationException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimiter.valkey.*} set to anything: settings within their documented ranges, or a
 * {@link ConfigurationException} whose every problem names a property that was set (as
 * {@link SettingsReaderPropertyTest} checks the library's own settings).
 */
class ValkeySettingsPropertyTest {

    private static final List<String> PROPERTIES = ValkeySettings.PROPERTIES.stream().sorted()
            .map(name -> "ratelimiter.valkey." + name).toList();

    @Property(tries = 1_000)
    @Label("one property set to anything: valid settings, or a ConfigurationException naming that property")
    void anyValueOfOneProperty(@ForAll("properties") String property, @ForAll("values") String value) {
        // sentinel and cluster mode need properties of their own, whose absence is their problem
        assertReadNamesOnly(Map.of(property, value), property.equals("ratelimiter.valkey.mode")
                ? List.of(property, "ratelimiter.valkey.nodes", "ratelimiter.valkey.master-name") : List.of(property));
    }

    @Property(tries = 300)
    @Label("every property set to anything at once: valid settings, or each problem names a property")
    void anyValuesOfAllProperties(@ForAll("allValues") List<String> values) {
        Map<String, String> properties = new HashMap<>();
        for (int i = 0; i < PROPERTIES.size(); i++) {
            properties.put(PROPERTIES.get(i), values.get(i));
        }
        assertReadNamesOnly(properties, PROPERTIES);
    }

    private static void assertReadNamesOnly(Map<String, String> properties, List<String> named) {
        SubtreeConfig config = new SubtreeConfig("valkey", name -> Optional.ofNullable(properties.get(name)));
        ValkeySettings settings = ValkeySettings.read(config);
        try {
            config.check();
        } catch (ConfigurationException e) {
            assertThat(e.problems()).isNotEmpty().allSatisfy(problem ->
                    assertThat(named).as("the property named by: " + problem)
                            .anySatisfy(property -> assertThat(problem).startsWith(property)));
            return;
        }
        assertThat(settings.timeout()).isBetween(Duration.ofMillis(1), Duration.ofMinutes(10));
        assertThat(settings.poolSize()).isBetween(1, 1_024);
        assertThat(settings.keyPrefix()).doesNotContain("{", "}");
    }

    @Provide
    Arbitrary<String> properties() {
        return Arbitraries.of(PROPERTIES);
    }

    @Provide
    Arbitrary<List<String>> allValues() {
        return values().list().ofSize(PROPERTIES.size());
    }

    @Provide
    Arbitrary<String> values() {
        return new SettingsReaderPropertyTest().values();
    }
}
