package dev.ratelimiter.internal.cdi.config;

import dev.ratelimiter.internal.core.settings.SettingsReader;
import dev.ratelimiter.spi.ConfigurationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code ratelimiter.key-secret=${RATE_LIMIT_KEY_SECRET}} with the variable unset fails the start naming the
 * property, whatever the server's MicroProfile Config answers for it: SmallRye Config (Quarkus, Open Liberty)
 * throws, others hand back the expression's text or nothing.
 */
class ConfigLookupTest {

    private static final String SECRET = "ratelimiter.key-secret";
    private static final String UNSET = "${RATELIMITER_TEST_NEVER_SET}";

    private static final Map<String, String> BUCKETS = Map.of(
            "ratelimiter.buckets.api-authenticated.limit", "600",
            "ratelimiter.buckets.api-authenticated.window", "PT1M",
            "ratelimiter.buckets.api-anonymous.limit", "120",
            "ratelimiter.buckets.api-anonymous.window", "PT1M");

    @Test
    @DisplayName("SmallRye Config: an unset ${VARIABLE} fails the start naming the property")
    void smallRye() {
        Map<String, String> properties = new HashMap<>(BUCKETS);
        properties.put(SECRET, UNSET);
        Config config = new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(properties, "test", 100))
                .build();

        assertThatThrownBy(() -> SettingsReader.read(new ConfigLookup(config), config.getPropertyNames()))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(SECRET + ": cannot be read:");
    }

    @ParameterizedTest(name = "the server answers {0}")
    @ValueSource(strings = {"the expression's text", "an empty value", "nothing"})
    @DisplayName("a Config that does not throw for an unset ${VARIABLE}: the start still fails naming the property")
    void otherAnswers(String answer) {
        String value = switch (answer) {
            case "the expression's text" -> UNSET;
            case "an empty value" -> "";
            default -> null;
        };
        Config config = config(UNSET, value);

        assertThatThrownBy(() -> SettingsReader.read(new ConfigLookup(config), config.getPropertyNames()))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(SECRET + ": cannot be read: " + UNSET + " cannot be resolved "
                        + "(is RATELIMITER_TEST_NEVER_SET set?)");
    }

    @Test
    @DisplayName("a resolved expression, one with a default and an escaped one are read as they come")
    void resolvedExpressions() {
        assertThat(new ConfigLookup(config("${HOME}", "/root")).apply(SECRET)).contains("/root");
        assertThat(new ConfigLookup(config("${RATELIMITER_TEST_NEVER_SET:}", "")).apply(SECRET)).contains("");
        assertThat(new ConfigLookup(config("\\${NOT_AN_EXPRESSION}", "${NOT_AN_EXPRESSION}")).apply(SECRET))
                .contains("${NOT_AN_EXPRESSION}");
        assertThat(new ConfigLookup(config(null, null)).apply(SECRET)).isEmpty();
    }

    /** A Config whose key secret has this raw text and this answer; the global buckets as usual. */
    private static Config config(String raw, String answer) {
        Map<String, String> values = new HashMap<>(BUCKETS);
        if (answer != null) {
            values.put(SECRET, answer);
        }
        ConfigValue secretValue = (ConfigValue) Proxy.newProxyInstance(ConfigValue.class.getClassLoader(),
                new Class<?>[] {ConfigValue.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getName" -> SECRET;
                    case "getValue" -> answer;
                    case "getRawValue" -> raw;
                    default -> null;
                });
        return (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getOptionalValue" -> Optional.ofNullable(values.get((String) args[0]));
                    case "getConfigValue" -> SECRET.equals(args[0]) ? secretValue : null;
                    case "getPropertyNames" -> values.keySet();
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
