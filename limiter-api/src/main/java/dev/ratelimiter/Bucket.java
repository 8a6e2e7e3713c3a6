package dev.ratelimiter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named limit: for each key, at most {@code limit} attempts per {@code window} in every one of its windows,
 * counted in fixed windows that open at a key's first attempt (a burst window of 10 per second and a sustained one
 * of 1 000 per hour, say). The windows of one bucket share one key in the store and are decided together: an
 * attempt refused by any window is counted in none of them (docs/guide.md#several-windows-per-bucket).
 *
 * @param name     the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}; it appears in configuration
 *                 keys, metrics tags, response headers and store keys
 * @param limits   the bucket's windows, from 1 to {@link #MAX_WINDOWS}, of distinct lengths; kept sorted from the
 *                 shortest window to the longest, unmodifiable
 * @param onOutage what to decide when the limiter cannot answer, never {@code null}
 */
public record Bucket(String name, List<Limit> limits, OutagePolicy onOutage) {

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

    /**
     * The most windows a bucket may have, 8: every window is read and written in the store's one round trip, so
     * their number bounds that call's work (a burst and a sustained window are the usual pair).
     */
    public static final int MAX_WINDOWS = 8;

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

    /**
     * One window of a bucket: at most {@code limit} attempts per {@code window}.
     *
     * @param limit  attempts allowed per window and key, from 1 to {@link #MAX_LIMIT} (10<sup>12</sup>)
     * @param window how long a window lasts from its first attempt: a whole number of seconds, from 1 s to
     *               {@link #MAX_WINDOW} (366 days)
     */
    public record Limit(long limit, Duration window) {

        /**
         * A window, its values checked.
         *
         * @param limit  attempts per window, from 1 to {@link #MAX_LIMIT}
         * @param window the window's length, whole seconds from 1 s to {@link #MAX_WINDOW}
         * @throws IllegalArgumentException if a value is out of range
         * @throws NullPointerException     if {@code window} is {@code null}
         */
        public Limit {
            Objects.requireNonNull(window, "window");
            if (limit < 1 || limit > MAX_LIMIT) {
                throw new IllegalArgumentException("limit must be from 1 to " + MAX_LIMIT + ", was " + limit);
            }
            if (window.getNano() != 0 || window.getSeconds() < 1 || window.compareTo(MAX_WINDOW) > 0) {
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

    /**
     * A bucket, its values checked; the windows are copied and sorted from the shortest to the longest.
     *
     * @param name     the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limits   1 to {@link #MAX_WINDOWS} windows of distinct lengths
     * @param onOutage what to decide when the limiter cannot answer
     * @throws IllegalArgumentException if a value is out of range, or two windows have the same length; the
     *                                  message names the bucket
     * @throws NullPointerException     if {@code name}, {@code limits}, a window or {@code onOutage} is {@code null}
     */
    public Bucket {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(onOutage, "onOutage");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bucket name '" + name
                    + "' must match [a-z0-9][a-z0-9-]{0,63} (lower-case letters, digits and '-')");
        }
        if (limits.isEmpty() || limits.size() > MAX_WINDOWS) {
            throw new IllegalArgumentException("bucket '" + name + "': must have from 1 to " + MAX_WINDOWS
                    + " windows, had " + limits.size());
        }
        if (limits.size() == 1) {
            limits = List.of(limits.get(0));
        } else {
            List<Limit> sorted = new ArrayList<>(limits);
            sorted.sort(Comparator.comparing(Limit::window));
            for (int i = 1; i < sorted.size(); i++) {
                if (sorted.get(i).window().equals(sorted.get(i - 1).window())) {
                    throw new IllegalArgumentException("bucket '" + name + "': two windows of "
                            + sorted.get(i).window() + "; each window needs its own length");
                }
            }
            limits = List.copyOf(sorted);
        }
    }

    /**
     * A bucket of one window.
     *
     * @param name     the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limit    attempts allowed per window and key, at least 1
     * @param window   a whole number of seconds, at least 1 s
     * @param onOutage what to decide when the limiter cannot answer
     * @throws IllegalArgumentException if a value is out of range; the message names the bucket and the value
     * @throws NullPointerException     if {@code name}, {@code window} or {@code onOutage} is {@code null}
     */
    public Bucket(String name, long limit, Duration window, OutagePolicy onOutage) {
        this(name, List.of(limit(name, limit, window)), onOutage);
    }

    /**
     * A bucket of one window with the default outage policy, {@link OutagePolicy#FALLBACK}.
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

    private static Limit limit(String name, long limit, Duration window) {
        Objects.requireNonNull(name, "name");
        try {
            return new Limit(limit, window);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bucket '" + name + "': " + e.getMessage(), e);
        }
    }

    /** {@return the shortest window's limit: the bucket's only limit when it has one window} */
    public long limit() {
        return limits.get(0).limit();
    }

    /** {@return the shortest window: the bucket's only window when it has one} */
    public Duration window() {
        return limits.get(0).window();
    }

    /** {@return the shortest window's length in whole seconds, at least 1} */
    public long windowSeconds() {
        return window().getSeconds();
    }

    /**
     * The smallest limit of the bucket's windows: the largest cost one call may have (a cost above it could never
     * be allowed).
     *
     * @return attempts, at least 1
     */
    public long smallestLimit() {
        long smallest = Long.MAX_VALUE;
        for (Limit limit : limits) {
            smallest = Math.min(smallest, limit.limit());
        }
        return smallest;
    }

    /** {@return whether the bucket has more than one window} */
    public boolean hasSeveralWindows() {
        return limits.size() > 1;
    }
}
