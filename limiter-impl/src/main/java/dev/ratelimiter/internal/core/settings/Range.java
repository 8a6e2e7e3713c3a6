package dev.ratelimiter.internal.core.settings;

import java.time.Duration;
import java.util.Objects;

/**
 * The accepted values of a numeric or duration property, both ends included. Its text is what docs/reference.md
 * and the startup error show: {@code from 1 to 1024}, {@code from PT0.001S to PT10M}
 * (whole days as {@code P366D}).
 *
 * @param min the smallest accepted value
 * @param max the largest accepted value, not below {@code min}
 */
record Range<T extends Comparable<? super T>>(T min, T max) {

    Range {
        Objects.requireNonNull(min, "min");
        Objects.requireNonNull(max, "max");
        if (min.compareTo(max) > 0) {
            throw new IllegalArgumentException("min " + min + " is above max " + max);
        }
    }

    static <T extends Comparable<? super T>> Range<T> of(T min, T max) {
        return new Range<>(min, max);
    }

    /** Whether {@code value} lies between both ends, inclusive. */
    boolean contains(T value) {
        return min.compareTo(value) <= 0 && value.compareTo(max) <= 0;
    }

    @Override
    public String toString() {
        return "from " + text(min) + " to " + text(max);
    }

    private static String text(Object value) {
        if (value instanceof Duration duration && !duration.isZero() && duration.toSeconds() % 86_400 == 0
                && duration.getNano() == 0) {
            return "P" + duration.toDays() + "D"; // Duration.toString() would say PT8784H for 366 days
        }
        return value.toString();
    }
}
