package dev.ratelimiter.internal.cdi.config;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;

import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A property's value from MicroProfile Config, for {@link dev.ratelimiter.internal.core.settings.SettingsReader}, refusing a value
 * whose expression could not be resolved ({@code ${RATE_LIMIT_KEY_SECRET}} with that variable unset) however the
 * server's Config reports it: SmallRye Config throws, others hand back the expression's text or an empty value.
 * The raw value ({@link ConfigValue#getRawValue()}, MicroProfile Config 2.0) tells the last two from a value
 * given as such: an expression without a default ({@code ${NAME}}, not {@code ${NAME:fallback}} nor the escaped
 * {@code \${NAME}}) whose text survives in the value, or that left the value empty, was not resolved.
 *
 * @see <a href="https://download.eclipse.org/microprofile/microprofile-config-3.1/microprofile-config-spec-3.1.html#property-expressions">MicroProfile Config 3.1, property expressions</a>
 */
final class ConfigLookup implements Function<String, Optional<String>> {

    /** An unescaped {@code ${...}} without a {@code :default}; nested expressions count by their outer text. */
    private static final Pattern EXPRESSION = Pattern.compile("(?<!\\\\)\\$\\{([^}:]*)}");

    private final Config config;

    ConfigLookup(Config config) {
        this.config = config;
    }

    /**
     * @return the value, empty if the property is not set
     * @throws IllegalStateException naming the expression that could not be resolved; whatever the server's
     *                               Config throws passes through (the reader names the property either way)
     */
    @Override
    public Optional<String> apply(String name) {
        Optional<String> value = config.getOptionalValue(name, String.class);
        String raw = rawValue(name);
        if (raw == null) {
            return value;
        }
        Matcher expression = EXPRESSION.matcher(raw);
        while (expression.find()) {
            String text = expression.group();
            if (value.isEmpty() || value.get().isBlank() || value.get().contains(text)) {
                throw new IllegalStateException(text + " cannot be resolved (is " + expression.group(1).strip()
                        + " set?)");
            }
        }
        return value;
    }

    private String rawValue(String name) {
        try {
            ConfigValue configValue = config.getConfigValue(name);
            return configValue == null ? null : configValue.getRawValue();
        } catch (RuntimeException e) {
            return null; // getOptionalValue answered; the raw text only helps to judge that answer
        }
    }
}
