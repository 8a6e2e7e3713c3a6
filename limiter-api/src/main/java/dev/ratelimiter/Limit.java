package dev.ratelimiter;

import java.time.Duration;
import java.util.Objects;

/**
 * One window of a bucket: at most {@code limit} attempts per {@code window}, or per period of the calendar
 * ({@link CalendarWindow}: an hour, a day, a week or a month in the bucket's zone).
 *
 * @param limit    attempts allowed per window and key, from 1 to {@link Bucket#MAX_LIMIT} (10<sup>12</sup>)
 * @param window   how long a window lasts from its first attempt: a whole number of seconds, from 1 s to
 *                 {@link Bucket#MAX_WINDOW} (366 days); for a calendar window, its period's
 *                 {@link CalendarWindow#nominal() nominal} length (the window itself ends at the period's boundary)
 * @param calendar the calendar period the window is aligned to, or {@code null} for a window of fixed length
 */
public record Limit(long limit, Duration window, CalendarWindow calendar) {

    /**
     * A window, its values checked.
     *
     * @param limit    attempts per window, from 1 to {@link Bucket#MAX_LIMIT}
     * @param window   the window's length, whole seconds from 1 s to {@link Bucket#MAX_WINDOW}; for a calendar
     *                 window, exactly its period's nominal length
     * @param calendar the calendar period, or {@code null} for a window of fixed length
     * @throws IllegalArgumentException if a value is out of range, or a calendar window's length is not its period's
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
        if (calendar != null && !window.equals(calendar.nominal())) {
            throw new IllegalArgumentException("a " + calendar.configName() + " window's length is "
                    + calendar.nominal().toHours() + " h (Limit.perCalendar gives it), was " + window);
        }
    }

    /**
     * A window of fixed length.
     *
     * @param limit  attempts per window, from 1 to {@link Bucket#MAX_LIMIT}
     * @param window the window's length, whole seconds from 1 s to {@link Bucket#MAX_WINDOW}
     * @throws IllegalArgumentException if a value is out of range
     * @throws NullPointerException     if {@code window} is {@code null}
     */
    public Limit(long limit, Duration window) {
        this(limit, window, null);
    }

    /**
     * A window aligned to the calendar: {@code limit} attempts per hour, day, week or month of the bucket's zone.
     *
     * @param limit    attempts per period, from 1 to {@link Bucket#MAX_LIMIT}
     * @param calendar the period
     * @return the window
     * @throws IllegalArgumentException if the limit is out of range
     * @throws NullPointerException     if {@code calendar} is {@code null}
     */
    public static Limit perCalendar(long limit, CalendarWindow calendar) {
        return new Limit(limit, Objects.requireNonNull(calendar, "calendar").nominal(), calendar);
    }

    /**
     * This window with another limit: the same length, or the same calendar period (a plan's limit).
     *
     * @param limit attempts per window, from 1 to {@link Bucket#MAX_LIMIT}
     * @return the window
     * @throws IllegalArgumentException if the limit is out of range
     */
    public Limit withLimit(long limit) {
        return new Limit(limit, window, calendar);
    }

    /** {@return whether the window is aligned to the calendar ({@link #calendar()} is set)} */
    public boolean isCalendar() {
        return calendar != null;
    }

    /**
     * The longest time a window can last, in milliseconds: its length, or for a calendar window its period's
     * {@link CalendarWindow#longest() longest}. A store's answer of the time left is clamped to it.
     *
     * @return milliseconds, at least 1 000
     */
    public long longestMillis() {
        return calendar == null ? window.toMillis() : calendar.longest().toMillis();
    }

    /** {@return the window's length in whole seconds, at least 1} */
    public long windowSeconds() {
        return window.getSeconds();
    }

    /**
     * The window's short name in header item names and store keys: its length in the largest whole unit,
     * {@code 1s}, {@code 15m}, {@code 1h}, {@code 7d} ({@code 90s}, not {@code 1.5m}); a calendar window's period,
     * {@code hour}, {@code day}, {@code week} or {@code month}.
     *
     * @return lower-case digits and one unit letter, or a period's name
     */
    public String windowName() {
        if (calendar != null) {
            return calendar.configName();
        }
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
