package dev.ratelimiter;

import java.time.Duration;
import java.util.Objects;

/**
 * One window of a bucket: at most {@code limit} attempts per {@code window}.
 *
 * @param limit  attempts allowed per window and key, from 1 to {@link Bucket#MAX_LIMIT} (10<sup>12</sup>)
 * @param window how long a window lasts from its first attempt: a whole number of seconds, from 1 s to
 *               {@link Bucket#MAX_WINDOW} (366 days)
 */
public record Limit(long limit, Duration window) {

    /**
     * A window, its values checked.
     *
     * @param limit  attempts per window, from 1 to {@link Bucket#MAX_LIMIT}
     * @param window the window's length, whole seconds from 1 s to {@link Bucket#MAX_WINDOW}
     * @throws IllegalArgumentException if a value is out of range
     * @throws NullPointerException     if {@code window} is {@code null}
     */
    public Limit {
        Objects.requireNonNull(window, "window");
        if (limit < 1 || limit > Bucket.MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be from 1 to " + Bucket.MAX_LIMIT + ", was " + limit);
        }
        if (window.getNano() != 0 || window.getSeconds() < 1 || window.compareTo(Bucket.MAX_WINDOW) > 0) {
            throw new IllegalArgumentException("window must be a whole number of seconds from PT1S to P366D, was "
                    + window);
        }
    }

    /** {@return the window's length in whole seconds, at least 1} */
    public long windowSeconds() {
        return window.getSeconds();
    }

    /**
     * The window's short name in header item names and store keys: its length in the largest whole unit,
     * {@code 1s}, {@code 15m}, {@code 1h}, {@code 7d} ({@code 90s}, not {@code 1.5m}).
     *
     * @return lower-case digits and one unit letter
     */
    public String windowName() {
        long seconds = windowSeconds();
        if (seconds % 86_400 == 0) {
            return seconds / 86_400 + "d";
        }
        if (seconds % 3_600 == 0) {
            return seconds / 3_600 + "h";
        }
        if (seconds % 60 == 0) {
            return seconds / 60 + "m";
        }
        return seconds + "s";
    }
}
