package dev.ratelimiter.spi;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CalendarPeriodsTest {

    private static final long FROM = Instant.parse("1990-01-01T00:00:00Z").toEpochMilli();
    private static final long TO = Instant.parse("2060-01-01T00:00:00Z").toEpochMilli();

    private final CalendarPeriods periods = new CalendarPeriods();

    @Property(tries = 2_000)
    @Label("in any zone, at any instant, and again a moment later (the kept period): the period holds the instant, "
            + "ends within its longest, and is the one java.time works out")
    void periodHoldsTheInstant(@ForAll("zones") ZoneId zone, @ForAll CalendarWindow window,
                               @ForAll("instants") long now, @ForAll("steps") long step) {
        for (long at : new long[] {now, now + step}) {
            long end = periods.endMillis(window, zone, at);
            assertThat(end).isGreaterThan(at)
                    .isEqualTo(window.end(Instant.ofEpochMilli(at), zone).toEpochMilli());
            long start = window.start(Instant.ofEpochMilli(at), zone).toEpochMilli();
            assertThat(start).isLessThanOrEqualTo(at);
            assertThat(end - start).isPositive().isLessThanOrEqualTo(window.longest().toMillis());
        }
    }

    @Example
    @Label("an instant in every hour around each offset change of a zone whose clocks move by half an hour: the "
            + "period still holds it")
    void halfHourChanges() {
        ZoneId lordHowe = ZoneId.of("Australia/Lord_Howe");
        java.time.zone.ZoneRules rules = lordHowe.getRules();
        java.time.zone.ZoneOffsetTransition transition = rules.nextTransition(Instant.parse("2027-01-01T00:00:00Z"));
        for (int i = 0; i < 4; i++) {
            long at = transition.getInstant().toEpochMilli();
            for (long step = -7_200_000; step <= 7_200_000; step += 60_000) {
                periodHoldsTheInstant(lordHowe, CalendarWindow.HOUR, at + step, 0);
                periodHoldsTheInstant(lordHowe, CalendarWindow.DAY, at + step, 0);
            }
            transition = rules.nextTransition(transition.getInstant());
        }
    }

    @Example
    @Label("a bucket's window opened now lasts until the period ends; a window of fixed length, its length")
    void windowMillis() {
        Bucket daily = new Bucket("daily", List.of(Limit.perCalendar(10, CalendarWindow.DAY)), OutagePolicy.FALLBACK,
                Algorithm.FIXED_WINDOW, 0, Bucket.NO_PLAN, ZoneId.of("Europe/Paris"));
        long now = Instant.parse("2027-03-28T22:30:00Z").toEpochMilli(); // 00:30 on the 29th in Paris
        assertThat(periods.windowMillis(daily, now)).isEqualTo(Duration.ofMinutes(23 * 60 + 30).toMillis());
        assertThat(periods.windowMillis(Bucket.of("fixed", 5, Duration.ofMinutes(15)), now))
                .isEqualTo(Duration.ofMinutes(15).toMillis());
    }

    @Provide
    Arbitrary<ZoneId> zones() {
        return Arbitraries.of(ZoneId.getAvailableZoneIds()).map(ZoneId::of);
    }

    @Provide
    Arbitrary<Long> instants() {
        return Arbitraries.longs().between(FROM, TO);
    }

    @Provide
    Arbitrary<Long> steps() {
        return Arbitraries.longs().between(0, Duration.ofDays(40).toMillis());
    }
}
