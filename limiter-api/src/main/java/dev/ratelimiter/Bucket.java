package dev.ratelimiter;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named limit: at most {@code limit} attempts per {@code window} for each key, counted in fixed windows that
 * open at a key's first attempt.
 *
 * @param name     the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}; it appears in configuration
 *                 keys, metrics tags, response headers and store keys
 * @param limit    attempts allowed per window and key, at least 1
 * @param window   how long a window lasts from its first attempt: a whole number of seconds, at least 1 s
 * @param onOutage what to decide when the limiter cannot answer, never {@code null}
 */
public record Bucket(String name, long limit, Duration window, OutagePolicy onOutage) {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

    /**
     * A bucket, its values checked.
     *
     * @param name     the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limit    attempts allowed per window and key, at least 1
     * @param window   a whole number of seconds, at least 1 s
     * @param onOutage what to decide when the limiter cannot answer
     * @throws IllegalArgumentException if a value is out of range; the message names the bucket and the value
     * @throws NullPointerException     if {@code name}, {@code window} or {@code onOutage} is {@code null}
     */
    public Bucket {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(onOutage, "onOutage");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bucket name '" + name
                    + "' must match [a-z0-9][a-z0-9-]{0,63} (lower-case letters, digits and '-')");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("bucket '" + name + "': limit must be at least 1, was " + limit);
        }
        if (window.getNano() != 0 || window.getSeconds() < 1) {
            throw new IllegalArgumentException("bucket '" + name
                    + "': window must be a whole number of seconds, at least PT1S, was " + window);
        }
    }

    /**
     * A bucket with the default outage policy, {@link OutagePolicy#FALLBACK}.
     *
     * @param name   the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limit  attempts allowed per window and key, at least 1
     * @param window a whole number of seconds, at least 1 s
     * @throws IllegalArgumentException if a value is out of range
     * @throws NullPointerException     if {@code name} or {@code window} is {@code null}
     */
    public Bucket(String name, long limit, Duration window) {
        this(name, limit, window, OutagePolicy.FALLBACK);
    }

    /** {@return the window's length in whole seconds, at least 1} */
    public long windowSeconds() {
        return window.getSeconds();
    }
}
