package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.StoreConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A store's configuration subtree {@code ratelimiter.<name>.*} over a property lookup (MicroProfile Config's in a
 * server, a map in tests), collecting every problem for one {@link ConfigurationException}. Values are read and
 * parsed by {@link PropertyValues}, as {@link SettingsReader} reads the library's own, so an operator reads one
 * style of error for every property.
 */
public final class SubtreeConfig implements StoreConfig {

    private final String prefix;
    private final List<String> problems = new ArrayList<>();
    private final PropertyValues values;

    /**
     * @param store  the store's name, the subtree's last segment
     * @param lookup a full property name's value, empty if unset
     */
    public SubtreeConfig(String store, Function<String, Optional<String>> lookup) {
        this.prefix = PropertyTable.PREFIX + store + '.';
        this.values = new PropertyValues(lookup, problems);
    }

    @Override
    public String fullName(String property) {
        return prefix + property;
    }

    @Override
    public Optional<String> string(String property) {
        return values.text(fullName(property)).map(String::strip);
    }

    @Override
    public long number(String property, long defaultValue, long min, long max) {
        return values.wholeNumber(fullName(property), defaultValue, Range.of(min, max));
    }

    @Override
    public Duration duration(String property, Duration defaultValue, Duration min, Duration max) {
        return values.duration(fullName(property), defaultValue, Range.of(min, max));
    }

    @Override
    public boolean bool(String property, boolean defaultValue) {
        return values.bool(fullName(property), defaultValue);
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
