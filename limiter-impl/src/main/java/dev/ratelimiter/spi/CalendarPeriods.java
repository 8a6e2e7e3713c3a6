package dev.ratelimiter.spi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Limit;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How long a one-window bucket's window lasts when it opens at a given instant: a window of fixed length its length,
 * a {@link CalendarWindow calendar window} the time left until its period ends in the bucket's
 * {@link Bucket#zone() zone} (docs/guide.md#quotas-per-day-and-month). The library works the boundary out, so every
 * store ends a calendar window at the same instant without reading any calendar on its server: a store opens the
 * window for this many milliseconds, and a window opened earlier in the same period already ends then.
 *
 * <p>Each zone's current period per calendar window is kept, so a call inside it costs a few comparisons (the
 * period found last) or a map read; a period is worked out again (with {@code java.time}) only when an instant falls
 * outside it. One instance per store; thread-safe.
 */
public final class CalendarPeriods {

    /** Zones kept: far more than the IANA database names (about 600); beyond it the table starts again. */
    private static final int MAX_ZONES = 1_024;

    private final Map<ZoneId, Period[]> byZone = new ConcurrentHashMap<>();
    // The period found last, tried before the map: an application's buckets mostly share one zone, and a bucket holds
    // one ZoneId object, which the look-up compares by identity (ZoneId.of makes a new one each time, so an equal zone
    // of another object takes the map). Plain, not volatile: a Period's fields are final, so a stale or racing read
    // still sees a whole period, and a miss only costs the map.
    private Period last;

    /**
     * The milliseconds a window of {@code bucket}'s first window lasts if it opens at {@code nowMillis}: for a
     * window of fixed length, {@link Limit#window()}; for a calendar window, until its period's end.
     *
     * @param bucket    the bucket; only its first window is read (a calendar window is a bucket's only window)
     * @param nowMillis the instant, in milliseconds since the epoch, from the library's clock
     * @return milliseconds, at least 1
     */
    public long windowMillis(Bucket bucket, long nowMillis) {
        Limit limit = bucket.limits().get(0);
        if (!limit.isCalendar()) {
            return limit.window().toMillis();
        }
        return endMillis(limit.calendar(), bucket.zone(), nowMillis) - nowMillis;
    }

    /**
     * When the period of {@code calendar} that holds {@code nowMillis} ends in {@code zone}
     * ({@link CalendarWindow#end}).
     *
     * @param calendar  the calendar window
     * @param zone      the zone
     * @param nowMillis the instant, in milliseconds since the epoch
     * @return the period's end, in milliseconds since the epoch, after {@code nowMillis}
     */
    public long endMillis(CalendarWindow calendar, ZoneId zone, long nowMillis) {
        Period recent = last;
        if (recent != null && recent.zone == zone && recent.calendar == calendar && nowMillis >= recent.start
                && nowMillis < recent.end) {
            return recent.end;
        }
        Period[] known = byZone.get(zone);
        if (known != null) {
            Period period = known[calendar.ordinal()];
            if (period != null && nowMillis >= period.start && nowMillis < period.end) {
                last = period;
                return period.end;
            }
        } else {
            if (byZone.size() >= MAX_ZONES) {
                byZone.clear();
            }
            known = byZone.computeIfAbsent(zone, z -> new Period[CalendarWindow.values().length]);
        }
        Instant instant = Instant.ofEpochMilli(nowMillis);
        Period period = new Period(zone, calendar, calendar.start(instant, zone).toEpochMilli(),
                calendar.end(instant, zone).toEpochMilli());
        // A race between two threads writes two right periods (each for its own instant); the record's final fields
        // make either safe to read from another thread.
        known[calendar.ordinal()] = period;
        last = period;
        return period.end;
    }

    /**
     * One period of {@code calendar} in {@code zone}: from {@code start} (included) to {@code end} (excluded), in
     * milliseconds since the epoch.
     */
    private record Period(ZoneId zone, CalendarWindow calendar, long start, long end) {
    }
}
