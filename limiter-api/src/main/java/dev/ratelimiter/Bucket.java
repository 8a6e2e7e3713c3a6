package dev.ratelimiter;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * (Over 400 lines, kept one file: it is a public record of the API, and a record cannot be split. Its eight components
 * each need their documented shapes and ranges, and its public factories ({@code of} ×4, {@code concurrency}) and
 * derived values ({@code limit}, {@code largestCost}, {@code reserves}, ...) are API that applications call on it;
 * the rules that check its values together already live apart, in {@link BucketRules}, and so does nothing else
 * that could move without changing the API.)
 *
 * <p>A named limit: for each key, at most {@code limit} attempts per {@code window} in every one of its windows (a
 * burst window of 10 per second and a sustained one of 1 000 per hour, say), counted by the bucket's
 * {@link Algorithm}: in fixed windows that open at a key's first attempt (the default), as token buckets that
 * refill at {@code limit} per {@code window}, or as sliding window counters that weigh the previous window's count
 * (docs/guide.md#choosing-an-algorithm). The windows of one bucket share one
 * key in the store and are decided together: an attempt refused by any window is counted in none of them
 * (docs/guide.md#several-windows-per-bucket).
 *
 * @param name      the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}; it appears in configuration
 *                  keys, metrics tags, response headers and store keys
 * @param limits    the bucket's windows, from 1 to {@link #MAX_WINDOWS}, of distinct lengths; kept sorted from the
 *                  shortest window to the longest, unmodifiable
 * @param onOutage  what to decide when the limiter cannot answer, never {@code null}
 * @param algorithm how the windows count, never {@code null}
 * @param burst     the most attempts the shortest window admits at once: for a {@link Algorithm#TOKEN_BUCKET token
 *                  bucket}, its capacity in tokens (1 to {@link #MAX_LIMIT}; 1 spaces calls evenly, SmallRye's
 *                  {@code minSpacing}); for a {@link Algorithm#FIXED_WINDOW fixed} or
 *                  {@link Algorithm#SLIDING_WINDOW sliding} window, its limit. Given as 0, the shortest window's
 *                  limit.
 * @param plan      whose limits these are (docs/plans.md): {@link #NO_PLAN} for the bucket's own, a plan's name
 *                  ({@code ratelimiter.buckets.<name>.plans}) or {@link #EXPLICIT_PLAN} for a customer's own limits.
 *                  A plan changes the limits (and a token bucket's burst) only, never the windows or the algorithm,
 *                  so a key keeps its counter when its plan changes; stores count by name and key, never by plan
 * @param zone      the time zone whose calendar a {@link CalendarWindow calendar window} follows
 *                  ({@code ratelimiter.buckets.<name>.zone}, or a customer's through {@link RateLimitPlan#inZone});
 *                  {@link ZoneOffset#UTC} by default, and without effect on a window of fixed length
 * @param maxWait   the longest a call of a {@code @RateLimited} method waits for the bucket to admit it
 *                  ({@code ratelimiter.buckets.<name>.max-wait}, docs/guide.md#waiting-instead-of-refusing), from 0 (a
 *                  refusal is at once, the default) to {@link #MAX_WAIT}, in whole milliseconds; a token bucket of
 *                  one window reserves a call's tokens up to that far ahead, in the store, in the order calls come
 */
public record Bucket(String name, List<Limit> limits, OutagePolicy onOutage, Algorithm algorithm, long burst,
                     String plan, ZoneId zone, Duration maxWait) {

    /** The {@link #plan()} of a bucket's own limits, and the metrics' {@code plan} label where no plan applies. */
    public static final String NO_PLAN = "none";

    /**
     * The {@link #plan()} of limits a {@link RateLimitPlanResolver} gave explicitly (a customer's contract): the
     * label metrics carry for them, never the customer's key.
     */
    public static final String EXPLICIT_PLAN = "explicit";


    /**
     * The largest limit, 10<sup>12</sup>: far above any real rate, and small enough that no count, remaining or
     * header value derived from it can overflow a {@code long}, nor lose precision in a store's double-precision
     * arithmetic (Lua numbers in Valkey: exact up to 2<sup>53</sup>).
     */
    public static final long MAX_LIMIT = 1_000_000_000_000L;

    /**
     * The longest window, 366 days: a year's quota, leap year included. Its milliseconds (about 3.2 * 10<sup>10</sup>)
     * added to any instant of this era stay far inside a {@code long}.
     */
    public static final Duration MAX_WINDOW = Duration.ofDays(366);

    /**
     * The most windows a bucket may have, 8: every window is read and written in the store's one round trip, so
     * their number bounds that call's work (a burst and a sustained window are the usual pair).
     */
    public static final int MAX_WINDOWS = 8;

    /**
     * The most permits a {@link Algorithm#CONCURRENCY concurrency} bucket holds per key, 10 000: each permit in
     * flight is a lease the store keeps (a member of a sorted set, an element of a row's array) and every take reads
     * them, so their number bounds that call's work.
     */
    public static final long MAX_PERMITS = 10_000;

    /**
     * The longest lease of a {@link Algorithm#CONCURRENCY concurrency} bucket's permit, one hour: a replica that dies
     * mid-call holds its permits until their leases end, so a lease is the longest a dead replica takes from the
     * others; a call that runs longer renews its lease while it runs.
     */
    public static final Duration MAX_LEASE = Duration.ofHours(1);

    /** The longest {@link #maxWait()}: a request held longer than a minute is better refused with its Retry-After. */
    public static final Duration MAX_WAIT = Duration.ofMinutes(1);

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

    /**
     * A bucket, its values checked; the windows are copied and sorted from the shortest to the longest.
     *
     * @param name      the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limits    1 to {@link #MAX_WINDOWS} windows of distinct lengths
     * @param onOutage  what to decide when the limiter cannot answer
     * @param algorithm how the windows count
     * @param burst     0 for the shortest window's limit; else, for a token bucket, its capacity from 1 to
     *                  {@link #MAX_LIMIT}, and for a fixed or sliding window, the shortest window's limit
     * @param plan      {@link #NO_PLAN}, {@link #EXPLICIT_PLAN} or a plan's name, matching
     *                  {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param zone      the zone of a calendar window's periods
     * @param maxWait   the longest a call waits, from 0 to {@link #MAX_WAIT} in whole milliseconds; not for a
     *                  concurrency bucket
     * @throws IllegalArgumentException if a value is out of range, a wait is not whole milliseconds, two windows have the same length, a fixed or
     *                                  sliding window is given another burst than its limit, a token bucket's window
     *                                  refills faster than one token per microsecond or takes longer than
     *                                  {@link #MAX_WINDOW} to fill, or a calendar window is not the bucket's only
     *                                  window or not a fixed window; the message names the bucket
     * @throws NullPointerException     if {@code name}, {@code limits}, a window, {@code onOutage},
     *                                  {@code algorithm}, {@code plan}, {@code zone} or {@code maxWait} is
     *                                  {@code null}
     */
    public Bucket {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(maxWait, "maxWait");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(onOutage, "onOutage");
        Objects.requireNonNull(algorithm, "algorithm");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bucket name '" + name
                    + "' must match [a-z0-9][a-z0-9-]{0,63} (lower-case letters, digits and '-')");
        }
        if (!NAME.matcher(plan).matches()) {
            throw new IllegalArgumentException("bucket '" + name + "': plan name '" + plan
                    + "' must match [a-z0-9][a-z0-9-]{0,63} (lower-case letters, digits and '-')");
        }
        if (limits.isEmpty() || limits.size() > MAX_WINDOWS) {
            throw new IllegalArgumentException("bucket '" + name + "': must have from 1 to " + MAX_WINDOWS
                    + " windows, had " + limits.size());
        }
        if (limits.size() == 1) {
            limits = List.of(limits.get(0));
        } else {
            List<Limit> sorted = new ArrayList<>(limits);
            sorted.sort(Comparator.comparing(Limit::window));
            for (int i = 1; i < sorted.size(); i++) {
                if (sorted.get(i).window().equals(sorted.get(i - 1).window())) {
                    throw new IllegalArgumentException("bucket '" + name + "': two windows of "
                            + sorted.get(i).window() + "; each window needs its own length");
                }
            }
            limits = List.copyOf(sorted);
        }
        BucketRules.checkCalendar(name, limits, algorithm);
        BucketRules.checkConcurrency(name, limits, algorithm);
        burst = BucketRules.checkedBurst(name, limits, algorithm, burst);
        BucketRules.checkMaxWait(name, algorithm, maxWait);
    }

    /**
     * A bucket whose calls never wait ({@link #maxWait()} 0).
     *
     * @param name      the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limits    1 to {@link #MAX_WINDOWS} windows of distinct lengths
     * @param onOutage  what to decide when the limiter cannot answer
     * @param algorithm how the windows count
     * @param burst     as the canonical constructor's
     * @param plan      as the canonical constructor's
     * @param zone      as the canonical constructor's
     * @throws IllegalArgumentException as the canonical constructor
     * @throws NullPointerException     as the canonical constructor
     */
    public Bucket(String name, List<Limit> limits, OutagePolicy onOutage, Algorithm algorithm, long burst,
                  String plan, ZoneId zone) {
        this(name, limits, onOutage, algorithm, burst, plan, zone, Duration.ZERO);
    }

    /**
     * A {@link Algorithm#CONCURRENCY concurrency} bucket: at most {@code permits} calls per key in flight at once,
     * each holding a permit leased for {@code lease} and renewed while it runs (docs/guide.md#concurrency-limits).
     *
     * @param name     the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param permits  calls in flight per key, from 1 to {@link #MAX_PERMITS}
     * @param lease    how long a permit is held without renewal: whole seconds, from 1 s to {@link #MAX_LEASE}; a
     *                 replica that dies mid-call frees its permits within it
     * @param onOutage what to decide when the store cannot answer: {@link OutagePolicy#FALLBACK} keeps
     *                 {@code permits} per process
     * @return the bucket, {@link #NO_PLAN}, in UTC
     * @throws IllegalArgumentException if a value is out of range; the message names the bucket and the value
     */
    public static Bucket concurrency(String name, long permits, Duration lease, OutagePolicy onOutage) {
        return new Bucket(name, List.of(limit(name, permits, lease)), onOutage, Algorithm.CONCURRENCY, 0, NO_PLAN);
    }

    /**
     * A bucket in UTC: its calendar windows, if any, follow UTC's calendar.
     *
     * @param name      the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limits    1 to {@link #MAX_WINDOWS} windows of distinct lengths
     * @param onOutage  what to decide when the limiter cannot answer
     * @param algorithm how the windows count
     * @param burst     as the canonical constructor's
     * @param plan      as the canonical constructor's
     * @throws IllegalArgumentException as the canonical constructor
     * @throws NullPointerException     as the canonical constructor
     */
    public Bucket(String name, List<Limit> limits, OutagePolicy onOutage, Algorithm algorithm, long burst,
                  String plan) {
        this(name, limits, onOutage, algorithm, burst, plan, ZoneOffset.UTC);
    }

    /**
     * A fixed-window bucket of one window, with the default outage policy, {@link OutagePolicy#FALLBACK}.
     *
     * @param name   the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limit  attempts allowed per window and key, from 1 to {@link #MAX_LIMIT}
     * @param window a whole number of seconds, from 1 s to {@link #MAX_WINDOW}
     * @return the bucket
     * @throws IllegalArgumentException if a value is out of range; the message names the bucket and the value
     * @throws NullPointerException     if {@code name} or {@code window} is {@code null}
     */
    public static Bucket of(String name, long limit, Duration window) {
        return of(name, limit, window, OutagePolicy.FALLBACK);
    }

    /**
     * A fixed-window bucket of one window.
     *
     * @param name     the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limit    attempts allowed per window and key, from 1 to {@link #MAX_LIMIT}
     * @param window   a whole number of seconds, from 1 s to {@link #MAX_WINDOW}
     * @param onOutage what to decide when the limiter cannot answer
     * @return the bucket
     * @throws IllegalArgumentException if a value is out of range; the message names the bucket and the value
     * @throws NullPointerException     if {@code name}, {@code window} or {@code onOutage} is {@code null}
     */
    public static Bucket of(String name, long limit, Duration window, OutagePolicy onOutage) {
        return of(name, List.of(limit(name, limit, window)), onOutage);
    }

    /**
     * A fixed-window bucket of one or more windows; the windows are copied and sorted from the shortest to the
     * longest.
     *
     * @param name     the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limits   1 to {@link #MAX_WINDOWS} windows of distinct lengths
     * @param onOutage what to decide when the limiter cannot answer
     * @return the bucket
     * @throws IllegalArgumentException if a value is out of range, or two windows have the same length; the
     *                                  message names the bucket
     * @throws NullPointerException     if {@code name}, {@code limits}, a window or {@code onOutage} is {@code null}
     */
    public static Bucket of(String name, List<Limit> limits, OutagePolicy onOutage) {
        return of(name, limits, onOutage, Algorithm.FIXED_WINDOW, 0);
    }

    /**
     * A bucket of its own limits ({@link #NO_PLAN}), counted by any algorithm; the windows are copied and sorted.
     *
     * @param name      the bucket's name, matching {@code [a-z0-9][a-z0-9-]{0,63}}
     * @param limits    1 to {@link #MAX_WINDOWS} windows of distinct lengths
     * @param onOutage  what to decide when the limiter cannot answer
     * @param algorithm how the windows count
     * @param burst     0 for the shortest window's limit; else, for a token bucket, its capacity in tokens from 1 to
     *                  {@link #MAX_LIMIT}, and for a fixed or sliding window, the shortest window's limit
     * @return the bucket
     * @throws IllegalArgumentException as the canonical constructor
     * @throws NullPointerException     if {@code name}, {@code limits}, a window, {@code onOutage} or
     *                                  {@code algorithm} is {@code null}
     */
    public static Bucket of(String name, List<Limit> limits, OutagePolicy onOutage, Algorithm algorithm,
                            long burst) {
        return new Bucket(name, limits, onOutage, algorithm, burst, NO_PLAN);
    }

    /**
     * This bucket under a plan's limits (docs/plans.md): the same name, windows, algorithm and outage policy, so the
     * same counters, compared with other limits.
     *
     * @param plan   the plan's name, or {@link #EXPLICIT_PLAN} for a customer's own limits
     * @param limits one limit per window of this bucket, of the same lengths, in any order
     * @param burst  for a token bucket, the plan's capacity (0: its shortest window's limit); else 0
     * @return the bucket under the plan; this bucket itself if nothing differs
     * @throws IllegalArgumentException naming the bucket and the plan, if the windows differ from this bucket's or a
     *                                  value is out of range
     */
    public Bucket withPlan(String plan, List<Limit> limits, long burst) {
        Bucket planned;
        try {
            planned = new Bucket(name, limits, onOutage, algorithm, burst, plan, zone, maxWait);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("plan '" + plan + "' of " + e.getMessage(), e);
        }
        boolean sameWindows = planned.limits.size() == this.limits.size();
        for (int i = 0; sameWindows && i < this.limits.size(); i++) {
            sameWindows = planned.limits.get(i).window().equals(this.limits.get(i).window())
                    && planned.limits.get(i).calendar() == this.limits.get(i).calendar();
        }
        if (!sameWindows) {
            throw new IllegalArgumentException("plan '" + plan + "' of bucket '" + name + "': a plan changes limits "
                    + "only, so it needs one limit for each of the bucket's windows " + windowNames()
                    + ", had " + planned.windowNames());
        }
        return planned.equals(this) ? this : planned;
    }

    /**
     * This bucket with its calendar windows in another zone: a customer's ({@link RateLimitPlan#inZone}). The same
     * name, windows, limits and counters; a window already open keeps its end unless the new zone's period ends
     * sooner, when it ends then (docs/guide.md#quotas-per-day-and-month).
     *
     * @param zone the zone
     * @return the bucket in that zone; this bucket itself if it is in that zone already
     * @throws NullPointerException if {@code zone} is {@code null}
     */
    public Bucket withZone(ZoneId zone) {
        return zone.equals(this.zone) ? this
                : new Bucket(name, limits, onOutage, algorithm, burst, plan, zone, maxWait);
    }

    /**
     * This bucket with another {@link #maxWait()}: the same name, windows, limits and counters.
     *
     * @param maxWait the longest a call waits, from 0 to {@link #MAX_WAIT} in whole milliseconds
     * @return the bucket; this bucket itself if its wait is that already
     * @throws IllegalArgumentException naming the bucket, if the wait is out of range or not whole milliseconds, or
     *                                  the bucket is a concurrency bucket
     * @throws NullPointerException     if {@code maxWait} is {@code null}
     */
    public Bucket withMaxWait(Duration maxWait) {
        return maxWait.equals(this.maxWait) ? this
                : new Bucket(name, limits, onOutage, algorithm, burst, plan, zone, maxWait);
    }

    /**
     * Whether the bucket's store reserves a call's tokens ahead (docs/guide.md#waiting-instead-of-refusing): a token
     * bucket of one window with a {@link #maxWait()}. An allowed call may then have to wait for its tokens: until its
     * verdict's {@code resetAfter} less the time the bucket takes to fill.
     *
     * @return true for a token bucket of one window whose calls may wait
     */
    public boolean reserves() {
        return algorithm == Algorithm.TOKEN_BUCKET && limits.size() == 1 && !maxWait.isZero();
    }

    /**
     * The zone as configuration names it: its IANA name ({@code Europe/Paris}), or {@code UTC} for UTC (whose
     * {@link ZoneOffset#UTC} id is {@code Z}).
     *
     * @return the zone's name
     */
    public String zoneName() {
        return zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId();
    }

    /** {@return whether the bucket's window is aligned to the calendar, its only window} */
    public boolean hasCalendarWindow() {
        return limits.get(0).isCalendar();
    }

    private List<String> windowNames() {
        return limits.stream().map(Limit::windowName).toList();
    }

    private static Limit limit(String name, long limit, Duration window) {
        Objects.requireNonNull(name, "name");
        try {
            return new Limit(limit, window);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bucket '" + name + "': " + e.getMessage(), e);
        }
    }

    /** {@return the shortest window's limit: the bucket's only limit when it has one window} */
    public long limit() {
        return limits.get(0).limit();
    }

    /** {@return the shortest window: the bucket's only window when it has one} */
    public Duration window() {
        return limits.get(0).window();
    }

    /** {@return the shortest window's length in whole seconds, at least 1} */
    public long windowSeconds() {
        return window().getSeconds();
    }

    /**
     * The smallest limit of the bucket's windows.
     *
     * @return attempts, at least 1
     */
    public long smallestLimit() {
        long smallest = Long.MAX_VALUE;
        for (Limit limit : limits) {
            smallest = Math.min(smallest, limit.limit());
        }
        return smallest;
    }

    /**
     * The largest cost one call may have: the smallest capacity of the bucket's windows (a cost above it could
     * never be allowed): for a token bucket, the {@link #burst()} of the shortest window and every longer window's
     * limit; for a fixed or sliding window, the smallest limit; for a {@link Algorithm#CONCURRENCY concurrency}
     * bucket 1, since a call holds one permit.
     *
     * @return attempts, at least 1
     */
    public long largestCost() {
        if (algorithm == Algorithm.CONCURRENCY) {
            return 1;
        }
        long smallest = Long.MAX_VALUE;
        for (int i = 0; i < limits.size(); i++) {
            smallest = Math.min(smallest, capacity(i));
        }
        return smallest;
    }

    // The token bucket's capacity, also spi.TokenBucketTiming's: largestCost needs it here, and the API names no spi.
    private long capacity(int index) {
        return algorithm == Algorithm.TOKEN_BUCKET && index == 0 ? burst : limits.get(index).limit();
    }

    /** {@return whether the bucket counts as a token bucket} */
    public boolean isTokenBucket() {
        return algorithm == Algorithm.TOKEN_BUCKET;
    }

    /** {@return whether the bucket counts as a sliding window} */
    public boolean isSlidingWindow() {
        return algorithm == Algorithm.SLIDING_WINDOW;
    }

    /** {@return whether the bucket limits the calls in flight ({@link Algorithm#CONCURRENCY}), not a rate} */
    public boolean isConcurrency() {
        return algorithm == Algorithm.CONCURRENCY;
    }

    /**
     * {@return a {@link Algorithm#CONCURRENCY concurrency} bucket's lease: how long a permit is held without renewal
     * (its one window's length)}
     */
    public Duration lease() {
        return limits.get(0).window();
    }

    /** {@return whether the bucket has more than one window} */
    public boolean hasSeveralWindows() {
        return limits.size() > 1;
    }
}
