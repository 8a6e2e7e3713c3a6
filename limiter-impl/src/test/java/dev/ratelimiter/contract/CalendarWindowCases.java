package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import static dev.ratelimiter.contract.Capability.CALENDAR_WINDOWS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calendar windows (docs/guide.md#quotas-per-day-and-month), which every store runs: a window opened in a period
 * ends at the period's boundary in the bucket's zone, which the library works out from its clock; the store only
 * gets the time left. Daylight-saving days of 23 and 25 hours, the end of a month, February 29, two customers of one
 * bucket in two zones, a check of a key never counted, and a customer whose zone changes.
 *
 * <p>A store that times windows on its server's clock (Valkey) gets the library's instants all the same: the time
 * left is worked out from the clock the case sets, and a case that crosses a boundary waits for the last second of
 * the period to pass for real ({@link RateLimiterContract#time()}).
 */
@Requires(CALENDAR_WINDOWS)
abstract class CalendarWindowCases extends ContractCases {

    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    private static final ZoneId TOKYO = ZoneId.of("Asia/Tokyo");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final long HOUR = 3_600;
    private static final long DAY = 86_400;

    CalendarWindowCases(RateLimiterContract contract) {
        super(contract);
    }

    @Test
    @DisplayName("Paris, 28 March 2027 (clocks go forward): a day opened at midnight lasts 23 h, and its refusal says so")
    void springForwardDayLasts23Hours() {
        Bucket bucket = calendarBucket("spring", 2, CalendarWindow.DAY, PARIS);
        clock.set(Instant.parse("2027-03-28T00:00:00+01:00"));
        Verdict first = limiter.consume(bucket, "k");
        assertThat(first.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(first.retryAfterSeconds()).isEqualTo(23 * HOUR);
        limiter.consume(bucket, "k");
        Verdict refused = limiter.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.retryAfterSeconds()).isEqualTo(23 * HOUR);
    }

    @Test
    @DisplayName("Paris, 31 October 2027 (clocks go back): a day opened at midnight lasts 25 h")
    void fallBackDayLasts25Hours() {
        Bucket bucket = calendarBucket("autumn", 1, CalendarWindow.DAY, PARIS);
        clock.set(Instant.parse("2027-10-31T00:00:00+02:00"));
        assertThat(limiter.consume(bucket, "k").retryAfterSeconds()).isEqualTo(25 * HOUR);
        Verdict refused = limiter.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.retryAfterSeconds()).isEqualTo(25 * HOUR);
    }

    @Test
    @DisplayName("a month quota spent on 31 January 23:59:59 UTC comes back on 1 February, for February's 28 days")
    void monthEndsOnTheFirst() {
        Bucket bucket = calendarBucket("month-end", 1, CalendarWindow.MONTH, ZoneOffset.UTC);
        clock.set(Instant.parse("2027-01-31T23:59:59Z"));
        assertThat(limiter.consume(bucket, "k").retryAfterSeconds()).isEqualTo(1);
        Verdict refused = limiter.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        time().advance(Duration.ofSeconds(1));
        Verdict february = limiter.consume(bucket, "k");
        assertThat(february.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(february.retryAfterSeconds()).isEqualTo(28 * DAY);
    }

    @Test
    @DisplayName("February 29, 2028 is a day of its own, and February 2028 a month of 29 days")
    void leapDayCounts() {
        Bucket day = calendarBucket("leap-day", 1, CalendarWindow.DAY, ZoneOffset.UTC);
        Bucket month = calendarBucket("leap-month", 1, CalendarWindow.MONTH, ZoneOffset.UTC);
        clock.set(Instant.parse("2028-02-01T00:00:00Z"));
        assertThat(limiter.consume(month, "k").retryAfterSeconds()).isEqualTo(29 * DAY);
        clock.set(Instant.parse("2028-02-28T23:59:59Z"));
        limiter.consume(day, "k");
        assertThat(limiter.consume(day, "k").outcome()).isEqualTo(Outcome.DENIED);
        time().advance(Duration.ofSeconds(1));
        Verdict leapDay = limiter.consume(day, "k");
        assertThat(leapDay.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(leapDay.retryAfterSeconds()).isEqualTo(DAY);
    }

    @Test
    @DisplayName("one bucket, two customers: Tokyo's day ends 1 s before 15:00 UTC, New York's 13 h later; each gets its own back")
    void twoZonesForTwoCustomers() {
        Bucket tokyo = calendarBucket("zones", 1, CalendarWindow.DAY, TOKYO);
        Bucket newYork = tokyo.withZone(NEW_YORK);
        clock.set(Instant.parse("2027-06-15T14:59:59Z")); // 23:59:59 in Tokyo, 10:59:59 in New York
        assertThat(limiter.consume(tokyo, "tokyo-customer").isAllowed()).isTrue();
        assertThat(limiter.consume(newYork, "new-york-customer").isAllowed()).isTrue();
        assertThat(limiter.consume(tokyo, "tokyo-customer").retryAfterSeconds()).isEqualTo(1);
        assertThat(limiter.consume(newYork, "new-york-customer").retryAfterSeconds()).isEqualTo(13 * HOUR + 1);
        time().advance(Duration.ofSeconds(1));
        assertThat(limiter.consume(tokyo, "tokyo-customer").isAllowed()).isTrue();
        Verdict newYorkStill = limiter.consume(newYork, "new-york-customer");
        assertThat(newYorkStill.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(newYorkStill.retryAfterSeconds()).isEqualTo(13 * HOUR);
    }

    @Test
    @DisplayName("a check (cost 0) of a key never counted shows the whole limit and the time left until the boundary, not a whole month")
    void checkCountsToTheBoundary() {
        Bucket bucket = calendarBucket("check", 100, CalendarWindow.MONTH, ZoneOffset.UTC);
        clock.set(Instant.parse("2027-01-31T12:00:00Z"));
        Verdict check = limiter.consume(bucket, "never-counted", 0);
        assertThat(check.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(check.remaining()).isEqualTo(100);
        assertThat(check.retryAfterSeconds()).isEqualTo(12 * HOUR);
    }

    @Test
    @DisplayName("a customer moved from New York to Tokyo keeps its count, and its window ends at Tokyo's midnight, the sooner")
    void zoneChangeKeepsTheCountAndEndsNoLater() {
        Bucket newYork = calendarBucket("moved", 2, CalendarWindow.DAY, NEW_YORK);
        clock.set(Instant.parse("2027-06-15T14:00:00Z")); // 10:00 in New York, 23:00 in Tokyo
        assertThat(limiter.consume(newYork, "k").retryAfterSeconds()).isEqualTo(14 * HOUR);
        Verdict inTokyo = limiter.consume(newYork.withZone(TOKYO), "k");
        assertThat(inTokyo.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(inTokyo.remaining()).isZero();
        assertThat(inTokyo.retryAfterSeconds()).isEqualTo(HOUR);
    }
}
