package dev.ratelimiter.spi;

import java.time.Duration;
import java.util.Optional;

/**
 * A store's configuration subtree, {@code ratelimiter.<name>.*}, read through MicroProfile Config (also in its
 * environment-variable form and under profiles). Every getter takes the property's name relative to the subtree.
 * A value that does not parse or lies outside its range is not thrown at once: it is collected, the getter returns
 * the default, and {@link #check()} throws one {@link ConfigurationException} naming every property and its range,
 * so the operator sees every problem in one failed deployment.
 */
public interface StoreConfig {

    /** The full name of a property of this subtree: {@code ratelimiter.<name>.<property>}. */
    String fullName(String property);

    /** The value, stripped; empty when unset or blank. */
    Optional<String> string(String property);

    /** A number from {@code min} to {@code max}, both included, or {@code defaultValue} when unset. */
    long number(String property, long defaultValue, long min, long max);

    /** An ISO-8601 duration ({@code PT0.5S}) from {@code min} to {@code max}, or {@code defaultValue} when unset. */
    Duration duration(String property, Duration defaultValue, Duration min, Duration max);

    /** {@code true} or {@code false} (any case), or {@code defaultValue} when unset. */
    boolean bool(String property, boolean defaultValue);

    /**
     * Records a problem, such as a required property left unset or a file that cannot be read.
     *
     * @param property the property to change, relative to the subtree
     * @param message  what is wrong and how to fix it
     */
    void problem(String property, String message);

    /**
     * @throws ConfigurationException listing every problem recorded so far, each naming its property
     */
    void check();
}
