package dev.ratelimiter;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.Objects;
import java.util.Optional;

/**
 * A window aligned to the calendar of a time zone (docs/guide.md#quotas-per-day-and-month): every key's window opens
 * at its first counted attempt and ends at the next boundary of its period, in the bucket's {@link Bucket#zone()}
 * (which a {@link RateLimitPlan} may set per customer). A day ends at the next local midnight, so it lasts 23 or 25
 * hours on a daylight-saving change; a month ends at midnight on the 1st of the next month, whatever its length;
 * February 29 is a day like any other. The library works the boundary out from its own clock with the zone's rules
 * ({@code java.time}, the IANA time zone database of the JVM); stores only receive the time left until it.
 *
 * <p>Only a {@link Algorithm#FIXED_WINDOW fixed window} counts in calendar periods, and only as a bucket's one window:
 * a token bucket refills at a constant rate and a sliding window weighs a previous window of the same length, which a
 * period of changing length has not.
 */
public enum CalendarWindow {
    /**
     * From the start of each hour of the zone's local time to the next: 3 600 s, the hour's start taken at the
     * offset in force (in a zone whose clocks move by half an hour, the hours around the change are shifted by it).
     */
    HOUR("hour", Duration.ofHours(1)),
    /** From local midnight to the next: 24 hours, or 23 or 25 on the days the zone's offset changes. */
    DAY("day", Duration.ofDays(1)),
    /** From Monday's local midnight (ISO 8601 weeks) to the next Monday's. */
    WEEK("week", Duration.ofDays(7)),
    /** From local midnight on the 1st to midnight on the next month's 1st: 28 to 31 days. */
    MONTH("month", Duration.ofDays(31));

    /**
     * How much longer than its nominal length a period can last: an offset change of the zone inside it. Real zones
     * have changed by at most a day at once (a date line crossing), so a day, a week or a month is never longer
     * than its nominal length plus this.
     */
    private static final Duration LONGEST_SHIFT = Duration.ofDays(1);

    private final String configName;
    private final Duration nominal;

    CalendarWindow(String configName, Duration nominal) {
        this.configName = configName;
        this.nominal = nominal;
    }

    /**
     * {@return the name in configuration and in headers: {@code hour}, {@code day}, {@code week} or {@code month}}
     * ({@code ratelimiter.buckets.<name>.window=month}, {@code limits=100000/month})
     */
    public String configName() {
        return configName;
    }

    /**
     * The period's usual length, what {@link Limit#window()} holds for it: 1 hour, 1 day, 7 days, or 31 days for a
     * month (its longest). It sorts windows and bounds range checks; a period's real length is {@link #end} less
     * its start.
     *
     * @return a positive whole number of seconds
     */
    public Duration nominal() {
        return nominal;
    }

    /**
     * The longest a period can last in any zone: its nominal length plus a day (an offset change inside it). A
     * store's answer of the time left is never trusted beyond it.
     *
     * @return a positive duration
     */
    public Duration longest() {
        return nominal.plus(LONGEST_SHIFT);
    }

    /**
     * When the period that holds {@code instant} in {@code zone} ends: the next local midnight (a day), the next
     * Monday's (a week), the 1st of the next month's (a month), the next hour. A local midnight that a
     * daylight-saving change skips is the first instant after the gap.
     *
     * @param instant any instant
     * @param zone    the zone whose calendar counts
     * @return an instant after {@code instant}, never equal to it
     * @throws NullPointerException if an argument is {@code null}
     */
    public Instant end(Instant instant, ZoneId zone) {
        Objects.requireNonNull(instant, "instant");
        Objects.requireNonNull(zone, "zone");
        ZonedDateTime local = instant.atZone(zone);
        LocalDate date = local.toLocalDate();
        return switch (this) {
            // At the offset in force: truncating the local time could resolve to the other offset of an overlap,
            // half an hour off in a zone whose clocks move by half an hour, and end the hour before the instant.
            case HOUR -> local.toOffsetDateTime().truncatedTo(ChronoUnit.HOURS).plusHours(1).toInstant();
            case DAY -> date.plusDays(1).atStartOfDay(zone).toInstant();
            case WEEK -> date.with(TemporalAdjusters.next(DayOfWeek.MONDAY)).atStartOfDay(zone).toInstant();
            case MONTH -> date.withDayOfMonth(1).plusMonths(1).atStartOfDay(zone).toInstant();
        };
    }

    /**
     * When the period that holds {@code instant} in {@code zone} began: the last boundary at or before it.
     *
     * @param instant any instant
     * @param zone    the zone whose calendar counts
     * @return an instant at or before {@code instant}
     * @throws NullPointerException if an argument is {@code null}
     */
    public Instant start(Instant instant, ZoneId zone) {
        Objects.requireNonNull(instant, "instant");
        Objects.requireNonNull(zone, "zone");
        ZonedDateTime local = instant.atZone(zone);
        LocalDate date = local.toLocalDate();
        Instant start = switch (this) {
            case HOUR -> local.toOffsetDateTime().truncatedTo(ChronoUnit.HOURS).toInstant();
            case DAY -> date.atStartOfDay(zone).toInstant();
            case WEEK -> date.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).atStartOfDay(zone).toInstant();
            case MONTH -> date.withDayOfMonth(1).atStartOfDay(zone).toInstant();
        };
        return start.isAfter(instant) ? instant : start; // a midnight pushed past a gap the instant lies in
    }

    /**
     * The calendar window of a configuration name.
     *
     * @param name {@code hour}, {@code day}, {@code week} or {@code month}, exactly
     * @return the window, or empty for any other name
     */
    public static Optional<CalendarWindow> ofConfigName(String name) {
        for (CalendarWindow window : values()) {
            if (window.configName.equals(name)) {
                return Optional.of(window);
            }
        }
        return Optional.empty();
    }
}
