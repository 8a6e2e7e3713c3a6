package dev.ratelimiter.internal.core;

import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.StoreConfig;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * A store's configuration subtree {@code ratelimiter.<name>.*} over a property lookup (MicroProfile Config's in a
 * server, a map in tests), collecting every problem for one {@link ConfigurationException}. The texts match
 * {@link SettingsReader}'s, so an operator reads one style of error for every property.
 */
public final class SubtreeConfig implements StoreConfig {

    private final String prefix;
    private final Function<String, Optional<String>> lookup;
    private final List<String> problems = new ArrayList<>();

    /**
     * @param store  the store's name, the subtree's last segment
     * @param lookup a full property name's value, empty if unset
     */
    public SubtreeConfig(String store, Function<String, Optional<String>> lookup) {
        this.prefix = SettingsReader.PREFIX + store + '.';
        this.lookup = lookup;
    }

    @Override
    public String fullName(String property) {
        return prefix + property;
    }

    @Override
    public Optional<String> string(String property) {
        try {
            return lookup.apply(fullName(property)).filter(value -> !value.isBlank()).map(String::strip);
        } catch (RuntimeException e) {
            // e.g. an expression such as ${VALKEY_PASSWORD} whose variable is not set
            problems.add(fullName(property) + ": cannot be read: " + e.getMessage());
            return Optional.empty();
        }
    }

    @Override
    public long number(String property, long defaultValue, long min, long max) {
        Optional<String> text = string(property);
        if (text.isEmpty()) {
            return defaultValue;
        }
        Range<Long> range = Range.of(min, max);
        try {
            long value = Long.parseLong(text.get());
            if (range.contains(value)) {
                return value;
            }
            problems.add(fullName(property) + ": " + value + " is out of range " + range);
        } catch (NumberFormatException e) {
            problems.add(fullName(property) + ": '" + text.get() + "' is not a whole number " + range);
        }
        return defaultValue;
    }

    @Override
    public Duration duration(String property, Duration defaultValue, Duration min, Duration max) {
        Optional<String> text = string(property);
        if (text.isEmpty()) {
            return defaultValue;
        }
        Range<Duration> range = Range.of(min, max);
        try {
            Duration value = Duration.parse(text.get());
            if (range.contains(value)) {
                return value;
            }
            problems.add(fullName(property) + ": '" + text.get() + "' is out of range " + range);
        } catch (DateTimeParseException e) {
            problems.add(fullName(property) + ": '" + text.get() + "' is not an ISO-8601 duration such as PT30S");
        }
        return defaultValue;
    }

    @Override
    public boolean bool(String property, boolean defaultValue) {
        Optional<String> text = string(property);
        if (text.isEmpty()) {
            return defaultValue;
        }
        String value = text.get().toLowerCase(Locale.ROOT);
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        problems.add(fullName(property) + ": '" + text.get() + "' is not a boolean; use true or false");
        return defaultValue;
    }

    @Override
    public void problem(String property, String message) {
        problems.add(fullName(property) + ": " + message);
    }

    @Override
    public void check() {
        if (!problems.isEmpty()) {
            throw new ConfigurationException(problems);
        }
    }
}
