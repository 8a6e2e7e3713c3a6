package dev.ratelimiter.testing;

import dev.ratelimiter.spi.ConfigurationException;
import org.assertj.core.api.InstanceOfAssertFactories;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The range rule every numeric and duration property follows (docs/reference.md), checked the
 * same way for the library's settings and each store's: both ends accepted, just outside refused with one problem
 * naming the property and its range.
 */
public final class RangeChecks {

    private RangeChecks() {
    }

    /**
     * @param properties the properties {@code read} reads, changed in place
     * @param read       reads the settings; throws {@link ConfigurationException} for a refused value
     * @param property   the property's full name
     * @param min        the smallest accepted value, as written
     * @param max        the largest accepted value
     * @param below      a value just below {@code min}
     * @param above      a value just above {@code max}
     */
    public static void inclusive(Map<String, String> properties, Runnable read, String property, String min,
                                 String max, String below, String above) {
        for (String accepted : new String[] {min, max}) {
            properties.put(property, accepted);
            read.run(); // no exception: accepted
        }
        for (String refused : new String[] {below, above}) {
            properties.put(property, refused);
            assertThatThrownBy(read::run).as(property + "=" + refused).isInstanceOf(ConfigurationException.class)
                    .satisfies(e -> assertThat(((ConfigurationException) e).problems())
                            .singleElement(InstanceOfAssertFactories.STRING)
                            .startsWith(property + ": ").contains(" from "));
        }
    }
}
