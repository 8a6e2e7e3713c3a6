package dev.ratelimiter.internal.core.settings;

import java.util.List;
import java.util.Objects;

/**
 * Which calls of a bucket stay counted (docs/guide.md#counting-failures-only): {@code ratelimiter.buckets.<name>.count}
 * and what a failure is. A call is counted before it runs either way; a bucket that counts failures only gives the
 * cost of a call that succeeded back.
 *
 * @param failuresOnly {@code count=failures}: only failed calls stay counted; false for {@code all}, the default
 * @param exceptions   the exception types, by class name, that make a method's call a failure (a subclass too);
 *                     empty (the default): every exception it throws
 * @param statuses     the HTTP statuses that make a request of the global filter's buckets a failure (default
 *                     400 to 599)
 */
public record FailureCounting(boolean failuresOnly, List<String> exceptions, List<StatusRange> statuses) {

    /** Every call counted; a failure, were it asked for, any exception or a status from 400 to 599. */
    public static final FailureCounting ALL = new FailureCounting(false, List.of(),
            List.of(new StatusRange(400, 599)));

    /**
     * A range of HTTP statuses, both ends included.
     *
     * @param from the first status, 100 to 599
     * @param to   the last, {@code from} to 599
     */
    public record StatusRange(int from, int to) {

        /** @throws IllegalArgumentException if the range is not within 100..599 or is empty */
        public StatusRange {
            if (from < 100 || to > 599 || from > to) {
                throw new IllegalArgumentException("'" + from + "-" + to + "' is not a range of HTTP statuses "
                        + "within 100-599");
            }
        }

        /**
         * Parses {@code 404} or {@code 400-499}.
         *
         * @throws IllegalArgumentException naming the text, if it is neither
         */
        public static StatusRange parse(String text) {
            String trimmed = text.strip();
            int dash = trimmed.indexOf('-');
            try {
                return dash < 0 ? new StatusRange(Integer.parseInt(trimmed), Integer.parseInt(trimmed))
                        : new StatusRange(Integer.parseInt(trimmed.substring(0, dash).strip()),
                        Integer.parseInt(trimmed.substring(dash + 1).strip()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a status or a range of statuses; use "
                        + "for example 401 or 400-599", e);
            }
        }
    }

    public FailureCounting {
        exceptions = List.copyOf(exceptions);
        statuses = List.copyOf(Objects.requireNonNull(statuses, "statuses"));
    }

    /** The same failures, with only failures counted (a method's {@code @RateLimited(count = FAILURES)}). */
    public FailureCounting onlyFailures() {
        return failuresOnly ? this : new FailureCounting(true, exceptions, statuses);
    }

    /** The same failures, with every call counted (a method's {@code @RateLimited(count = ALL)}). */
    public FailureCounting everyCall() {
        return failuresOnly ? new FailureCounting(false, exceptions, statuses) : this;
    }

    /**
     * Whether a method's call that threw {@code thrown} failed: every exception when no types are named, else one
     * of the named types or a subclass of one.
     *
     * @param thrown what the method threw
     */
    public boolean failedWith(Throwable thrown) {
        if (exceptions.isEmpty()) {
            return true;
        }
        for (Class<?> type = thrown.getClass(); type != null; type = type.getSuperclass()) {
            if (exceptions.contains(type.getName())) {
                return true;
            }
        }
        return false;
    }

    /** Whether a response of this HTTP status is a failed request. */
    public boolean failedWith(int status) {
        for (StatusRange range : statuses) {
            if (status >= range.from() && status <= range.to()) {
                return true;
            }
        }
        return false;
    }
}
