package dev.ratelimiter.internal.core.settings;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads and parses property values for {@link SettingsReader} (the library's properties) and {@link SubtreeConfig}
 * (a store's), so both say the same thing of the same mistake: a value that cannot be read, parsed or lies out of its
 * range adds one line naming the property to {@code problems}, and the caller goes on with its default, so one
 * failed start lists every problem.
 */
final class PropertyValues {

    private final Function<String, Optional<String>> lookup;
    private final List<String> problems;

    /**
     * @param lookup   a full property name's value, empty if unset; it may throw (an unresolved {@code ${...}})
     * @param problems where each problem's line is added
     */
    PropertyValues(Function<String, Optional<String>> lookup, List<String> problems) {
        this.lookup = lookup;
        this.problems = problems;
    }

    /** The value, empty when unset or blank; one that cannot be read is a problem, and empty. */
    Optional<String> text(String property) {
        try {
            return lookup.apply(property).filter(value -> !value.isBlank());
        } catch (RuntimeException e) {
            // e.g. an expression such as ${RATE_LIMIT_KEY_SECRET} whose variable is not set
            problems.add(property + ": cannot be read: " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Whether the configuration has a value for the property, which is how a name under a profile is known to
     * apply (docs/guide.md#configuration-profiles); one it cannot read counts (reading it reports the problem).
     */
    boolean answers(String property) {
        try {
            return lookup.apply(property).filter(value -> !value.isBlank()).isPresent();
        } catch (RuntimeException e) {
            return true;
        }
    }

    /** {@code true} or {@code false} in any case; {@code defaultValue} when unset or after a problem. */
    boolean bool(String property, boolean defaultValue) {
        Optional<String> text = text(property);
        if (text.isEmpty()) {
            return defaultValue;
        }
        String value = text.get().strip().toLowerCase(Locale.ROOT);
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        problems.add(property + ": '" + text.get() + "' is not a boolean; use true or false");
        return defaultValue;
    }

    /** A whole number in {@code range}; {@code defaultValue} when unset or after a problem. */
    long wholeNumber(String property, long defaultValue, Range<Long> range) {
        Optional<String> text = text(property);
        if (text.isEmpty()) {
            return defaultValue;
        }
        Long value = parseWholeNumber(property, text.get(), range);
        return value == null ? defaultValue : value;
    }

    /** An ISO-8601 duration in {@code range}; {@code defaultValue} when unset or after a problem. */
    Duration duration(String property, Duration defaultValue, Range<Duration> range) {
        Optional<String> text = text(property);
        if (text.isEmpty()) {
            return defaultValue;
        }
        Duration value = parseDuration(property, text.get(), "PT30S");
        if (value != null && !range.contains(value)) {
            problems.add(property + ": '" + text.get() + "' is out of range " + range);
            return defaultValue;
        }
        return value == null ? defaultValue : value;
    }

    /** The whole number in {@code text}, or null after adding a problem (not a number, or out of range). */
    Long parseWholeNumber(String property, String text, Range<Long> range) {
        long value;
        try {
            value = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            problems.add(property + ": '" + text + "' is not a whole number " + range);
            return null;
        }
        if (!range.contains(value)) {
            problems.add(property + ": " + value + " is out of range " + range);
            return null;
        }
        return value;
    }

    /** The duration in {@code text}, or null after adding a problem that gives {@code example}. */
    Duration parseDuration(String property, String text, String example) {
        try {
            return Duration.parse(text.strip());
        } catch (DateTimeParseException e) {
            problems.add(property + ": '" + text + "' is not an ISO-8601 duration such as " + example);
            return null;
        }
    }
}
