package dev.ratelimiter;

import java.time.Duration;
import java.util.List;

/**
 * The rules a {@link Bucket}'s windows and algorithm must keep together, checked when a bucket is made: a calendar
 * window alone and counted as a fixed window, a concurrency bucket's one limit and lease, a token bucket's burst and
 * refill. Each failure is an {@link IllegalArgumentException} naming the bucket.
 */
final class BucketRules {

    private static final long MICROS_PER_SECOND = 1_000_000;

    private BucketRules() {
    }

    // A concurrency bucket's one "window" is its lease time: one number of permits, held for a lease at a time.
    static void checkConcurrency(String name, List<Limit> limits, Algorithm algorithm) {
        if (algorithm != Algorithm.CONCURRENCY) {
            return;
        }
        Limit permits = limits.get(0);
        if (limits.size() > 1) {
            throw new IllegalArgumentException("bucket '" + name + "': a concurrency bucket has one limit (its "
                    + "permits) and one lease, not " + limits.size() + " windows; limit a rate with a second bucket "
                    + "on the same method");
        }
        if (permits.isCalendar()) {
            throw new IllegalArgumentException("bucket '" + name + "': a concurrency bucket's lease is a duration, "
                    + "not a calendar period (" + permits.windowName() + ")");
        }
        if (permits.limit() > Bucket.MAX_PERMITS) {
            throw new IllegalArgumentException("bucket '" + name + "': a concurrency bucket holds at most "
                    + Bucket.MAX_PERMITS + " permits per key, was " + permits.limit());
        }
        if (permits.window().compareTo(Bucket.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("bucket '" + name + "': a permit's lease is at most " + Bucket.MAX_LEASE
                    + ", was " + permits.window() + "; a longer call renews its lease while it runs");
        }
    }

    // A period of changing length has no constant refill rate (token bucket) nor a previous window of the same
    // length (sliding window); alone, its one window keeps one row, key or cell, as every store keeps one window.
    static void checkCalendar(String name, List<Limit> limits, Algorithm algorithm) {
        for (Limit limit : limits) {
            if (!limit.isCalendar()) {
                continue;
            }
            if (limits.size() > 1) {
                throw new IllegalArgumentException("bucket '" + name + "': a calendar window ("
                        + limit.windowName() + ") must be the bucket's only window; limit the burst with a second "
                        + "bucket on the same method");
            }
            if (algorithm != Algorithm.FIXED_WINDOW) {
                throw new IllegalArgumentException("bucket '" + name + "': a calendar window ("
                        + limit.windowName() + ") counts as a fixed-window only; this bucket is a "
                        + algorithm.configName());
            }
        }
    }

    // A concurrency bucket's permit frees when a call ends, at no time a wait could aim at.
    static void checkMaxWait(String name, Algorithm algorithm, Duration maxWait) {
        if (maxWait.isNegative() || maxWait.compareTo(Bucket.MAX_WAIT) > 0) {
            throw new IllegalArgumentException("bucket '" + name + "': a call waits from 0 to " + Bucket.MAX_WAIT
                    + ", was " + maxWait);
        }
        if (maxWait.toNanos() % 1_000_000 != 0) { // verdicts tell time in milliseconds: a finer wait is never met
            throw new IllegalArgumentException("bucket '" + name + "': a call waits whole milliseconds, was "
                    + maxWait);
        }
        if (algorithm == Algorithm.CONCURRENCY && !maxWait.isZero()) {
            throw new IllegalArgumentException("bucket '" + name + "': a concurrency bucket's calls do not wait: a "
                    + "permit frees when a call ends, at no time a wait could aim at");
        }
    }

    static long checkedBurst(String name, List<Limit> limits, Algorithm algorithm, long burst) {
        long shortest = limits.get(0).limit();
        if (burst == 0) {
            burst = shortest;
        }
        if (algorithm != Algorithm.TOKEN_BUCKET) {
            if (burst != shortest) {
                throw new IllegalArgumentException("bucket '" + name + "': a burst applies to a token bucket only; "
                        + "this bucket is a " + algorithm.configName());
            }
            return burst;
        }
        if (burst < 1 || burst > Bucket.MAX_LIMIT) {
            throw new IllegalArgumentException("bucket '" + name + "': burst must be from 1 to " + Bucket.MAX_LIMIT
                    + ", was " + burst);
        }
        long maxMicros = Bucket.MAX_WINDOW.toSeconds() * MICROS_PER_SECOND;
        for (int i = 0; i < limits.size(); i++) {
            Limit limit = limits.get(i);
            long interval = limit.windowSeconds() * MICROS_PER_SECOND / limit.limit();
            if (interval < 1) {
                throw new IllegalArgumentException("bucket '" + name + "': a token bucket refills at most one token "
                        + "per microsecond; " + limit.limit() + " per " + limit.window() + " is faster");
            }
            long capacity = i == 0 ? burst : limit.limit();
            if (capacity > maxMicros / interval) {
                throw new IllegalArgumentException("bucket '" + name + "': a token bucket of " + capacity
                        + " tokens refilled at " + limit.limit() + " per " + limit.window()
                        + " would take longer than " + Bucket.MAX_WINDOW + " to fill; lower the burst");
            }
        }
        return burst;
    }
}
