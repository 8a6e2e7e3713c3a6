package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Limit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Parses a bucket's or a plan's windows for {@link BucketsReader} and {@link PlansReader}, so both say the same of
 * the same mistake: {@code <limit>/<window>, ...} ({@code ratelimiter.buckets.<name>.limits}, and a plan's
 * {@code limits}) and a window alone, each problem a line naming the property.
 */
final class LimitsParser {

    /** Bucket limits ({@link Bucket#MAX_LIMIT}). */
    private static final Range<Long> LIMIT = PropertyTable.BUCKET_LIMIT.wholeNumbers();
    /** Bucket windows, in whole seconds ({@link Bucket#MAX_WINDOW}). */
    private static final Range<Duration> WINDOW = PropertyTable.BUCKET_WINDOW.durations();

    private final PropertyValues values;
    private final List<String> problems;

    /**
     * @param values   the reader's parser, adding to {@code problems}
     * @param problems the reader's problems
     */
    LimitsParser(PropertyValues values, List<String> problems) {
        this.values = values;
        this.problems = problems;
    }

    /**
     * {@code <limit>/<window>, ...}: each a whole number {@link #LIMIT} and an ISO-8601 duration {@link #WINDOW}, 1
     * to {@link Bucket#MAX_WINDOWS} of them; null after adding a problem naming the property and the item.
     */
    List<Limit> limits(String property, String text) {
        List<Limit> limits = new ArrayList<>();
        int before = problems.size();
        for (String item : text.split(",")) {
            String trimmed = item.strip();
            int slash = trimmed.indexOf('/');
            if (slash < 0) {
                problems.add(property + ": '" + trimmed + "' is not <limit>/<window>; write for example "
                        + "10/PT1S, 1000/PT1H");
                continue;
            }
            Long limit = values.parseWholeNumber(property, trimmed.substring(0, slash), LIMIT);
            Limit parsed = limit(property, limit, trimmed.substring(slash + 1));
            if (parsed != null) {
                limits.add(parsed);
            }
        }
        if (problems.size() > before) {
            return null;
        }
        if (limits.isEmpty() || limits.size() > Bucket.MAX_WINDOWS) {
            problems.add(property + ": '" + text + "' must list from 1 to " + Bucket.MAX_WINDOWS
                    + " windows as <limit>/<window>, such as 10/PT1S, 1000/PT1H");
            return null;
        }
        return limits;
    }

    /** A whole number {@link #LIMIT}; null after adding a problem naming the property. */
    Long limit(String property, String text) {
        return values.parseWholeNumber(property, text, LIMIT);
    }

    /**
     * {@code limit} per the window {@code windowText} names: a calendar period ({@code hour}, {@code day},
     * {@code week}, {@code month}; {@link CalendarWindow}) or a whole number of seconds {@link #WINDOW}; null when
     * {@code limit} is (its problem is told) or after adding a problem naming the property.
     */
    Limit limit(String property, Long limit, String windowText) {
        Optional<CalendarWindow> calendar = CalendarWindow.ofConfigName(windowText.strip().toLowerCase(Locale.ROOT));
        if (calendar.isPresent()) {
            return limit == null ? null : Limit.perCalendar(limit, calendar.get());
        }
        Duration window = window(property, windowText);
        return limit == null || window == null ? null : new Limit(limit, window);
    }

    /** A whole number of seconds {@link #WINDOW}; null after adding a problem naming the property. */
    private Duration window(String property, String text) {
        Duration window = values.parseDuration(property, text, "PT1M or PT15M, or hour, day, week or month");
        if (window != null && (window.getNano() != 0 || !WINDOW.contains(window))) {
            problems.add(property + ": '" + text + "' must be a whole number of seconds " + WINDOW);
            return null;
        }
        return window;
    }
}
