package dev.ratelimiter;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class CalendarWindowTest {

    @ParameterizedTest(name = "{0} of {2} at {1}: {3} to {4}")
    @CsvSource({
            // Daylight saving in Paris: a day of 23 hours, a day of 25
            "DAY, 2027-03-28T12:00:00+02:00, Europe/Paris, 2027-03-28T00:00:00+01:00, 2027-03-29T00:00:00+02:00",
            "DAY, 2027-10-31T12:00:00+01:00, Europe/Paris, 2027-10-31T00:00:00+02:00, 2027-11-01T00:00:00+01:00",
            // New York's clocks go forward on 14 March 2027: that day's period is 23 h
            "DAY, 2027-03-14T03:30:00-04:00, America/New_York, 2027-03-14T00:00:00-05:00, 2027-03-15T00:00:00-04:00",
            // The 31st to the 1st, in UTC and in Tokyo; February 29
            "MONTH, 2027-01-31T23:59:59Z, UTC, 2027-01-01T00:00:00Z, 2027-02-01T00:00:00Z",
            "MONTH, 2027-02-01T00:00:00Z, UTC, 2027-02-01T00:00:00Z, 2027-03-01T00:00:00Z",
            "MONTH, 2028-02-29T12:00:00Z, UTC, 2028-02-01T00:00:00Z, 2028-03-01T00:00:00Z",
            "DAY, 2028-02-29T23:59:59.999Z, UTC, 2028-02-29T00:00:00Z, 2028-03-01T00:00:00Z",
            "MONTH, 2027-01-31T15:00:00Z, Asia/Tokyo, 2027-02-01T00:00:00+09:00, 2027-03-01T00:00:00+09:00",
            "MONTH, 2027-12-31T23:00:00Z, UTC, 2027-12-01T00:00:00Z, 2028-01-01T00:00:00Z",
            // ISO weeks start on Monday: Sunday 6 December 2026 is the last day of its week
            "WEEK, 2026-12-06T23:00:00Z, UTC, 2026-11-30T00:00:00Z, 2026-12-07T00:00:00Z",
            "WEEK, 2026-12-07T00:00:00Z, UTC, 2026-12-07T00:00:00Z, 2026-12-14T00:00:00Z",
            // Hours, also in a zone half an hour off UTC
            "HOUR, 2027-06-15T10:59:59Z, UTC, 2027-06-15T10:00:00Z, 2027-06-15T11:00:00Z",
            "HOUR, 2027-06-15T10:59:59Z, Asia/Kolkata, 2027-06-15T10:30:00Z, 2027-06-15T11:30:00Z",
            // Lord Howe Island's clocks go back half an hour on 4 April 2027 (local time, 02:00+11 to 01:30+10:30):
            // 01:45+10:30 is in the hour that began at 01:00+10:30, not at 01:00+11, which ended before it
            "HOUR, 2027-04-03T15:15:00Z, Australia/Lord_Howe, 2027-04-03T14:30:00Z, 2027-04-03T15:30:00Z",
            // São Paulo's midnight was skipped on 4 November 2018: the day began at 01:00
            "DAY, 2018-11-04T12:00:00-02:00, America/Sao_Paulo, 2018-11-04T01:00:00-02:00, 2018-11-05T00:00:00-02:00"
    })
    void periods(CalendarWindow window, Instant instant, String zone, Instant start, Instant end) {
        assertThat(window.start(instant, ZoneId.of(zone))).isEqualTo(start);
        assertThat(window.end(instant, ZoneId.of(zone))).isEqualTo(end);
    }

    @Test
    @DisplayName("a period's end is never its instant: at a boundary the next period begins")
    void boundaryOpensTheNext() {
        Instant midnight = Instant.parse("2027-02-01T00:00:00Z");
        assertThat(CalendarWindow.MONTH.end(midnight, ZoneId.of("UTC"))).isEqualTo("2027-03-01T00:00:00Z");
        assertThat(CalendarWindow.MONTH.start(midnight, ZoneId.of("UTC"))).isEqualTo(midnight);
    }

    @Test
    @DisplayName("configuration names, lower case: hour, day, week, month")
    void configNames() {
        assertThat(CalendarWindow.ofConfigName("month")).contains(CalendarWindow.MONTH);
        assertThat(CalendarWindow.ofConfigName("fortnight")).isEmpty();
        assertThat(CalendarWindow.DAY.configName()).isEqualTo("day");
    }

    @Test
    @DisplayName("a calendar limit: its period's nominal length, its name, its longest; no other length")
    void calendarLimit() {
        Limit monthly = Limit.perCalendar(100_000, CalendarWindow.MONTH);
        assertThat(monthly.window()).isEqualTo(Duration.ofDays(31));
        assertThat(monthly.windowName()).isEqualTo("month");
        assertThat(monthly.longestMillis()).isEqualTo(Duration.ofDays(32).toMillis());
        assertThat(monthly.withLimit(5)).isEqualTo(Limit.perCalendar(5, CalendarWindow.MONTH));
        assertThatIllegalArgumentException().isThrownBy(() -> new Limit(5, Duration.ofDays(30), CalendarWindow.MONTH))
                .withMessageContaining("a month window's length is 744 h");
    }

    @Test
    @DisplayName("a calendar window is its bucket's only window, and a fixed window")
    void calendarBucketRules() {
        Limit daily = Limit.perCalendar(1_000, CalendarWindow.DAY);
        assertThatIllegalArgumentException().isThrownBy(() -> Bucket.of("api", java.util.List.of(daily,
                        new Limit(10, Duration.ofSeconds(1))), OutagePolicy.FALLBACK))
                .withMessageContaining("bucket 'api': a calendar window (day) must be the bucket's only window");
        assertThatIllegalArgumentException().isThrownBy(() -> Bucket.of("api", java.util.List.of(daily),
                        OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0))
                .withMessageContaining("counts as a fixed-window only; this bucket is a sliding-window");
        Bucket bucket = Bucket.of("api", java.util.List.of(daily), OutagePolicy.FALLBACK);
        assertThat(bucket.hasCalendarWindow()).isTrue();
        assertThat(bucket.zone()).isEqualTo(java.time.ZoneOffset.UTC);
        assertThat(bucket.withZone(ZoneId.of("Europe/Paris")).limits()).isEqualTo(bucket.limits());
        assertThat(bucket.withZone(java.time.ZoneOffset.UTC)).isSameAs(bucket);
    }
}
