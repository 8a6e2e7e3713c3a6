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
 * @param limit    attempts allowed per window and key, from 1 to {@link #MAX_LIMIT} (10<sup>12</sup>)
 * @param window   how long a window lasts from its first attempt: a whole number of seconds, from 1 s to
 *                 {@link #MAX_WINDOW} (366 days)
 * @param onOutage what to decide when the limiter cannot answer, never {@code null}
 */
public record Bucket(String name, long limit, Duration window, OutagePolicy onOutage) {

    /**
     * The largest limit, 10<sup>12</sup>: far above any real rate, and small enough that no count, remaining or
     * header value derived from it can overflow a {@code long}, nor lose precision in a store's double-precision
     * arithmetic (Lua numbers in Valkey: exact up to 2<sup>53</sup>).
     */
    public static final long MAX_LIMIT = 1_000_000_000_000L;

    /**
     * The longest window, 366 days: a year's quota, leap year included. Its milliseconds (about 3.2 * 10<sup>10</sup>)
     * added to any instant of this era stay far inside a {@code long}.
     */
    public static final Duration MAX_WINDOW = Duration.ofDays(366);

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
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("bucket '" + name + "': limit must be from 1 to " + MAX_LIMIT
                    + ", was " + limit);
        }
        if (window.getNano() != 0 || window.getSeconds() < 1 || window.compareTo(MAX_WINDOW) > 0) {
            throw new IllegalArgumentException("bucket '" + name
                    + "': window must be a whole number of seconds from PT1S to P366D, was " + window);
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
