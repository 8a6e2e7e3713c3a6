package dev.ratelimiter;

import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link RateLimitPlanResolver} answers for a call: one of the bucket's declared plans, by name, or a customer's
 * own limits (docs/plans.md), either in the customer's time zone ({@link #inZone}) for a calendar window. Either way
 * only the limits (and that zone) change: the bucket's windows, algorithm and counters stay, so a key whose plan
 * changes keeps its count and is compared with the new limits from its next call. A value: equal plans are
 * {@link #equals equal}.
 */
public final class RateLimitPlan {

    private final String name;
    private final List<Limit> limits;
    private final long limit;
    private final long burst;
    private final ZoneId zone;

    private RateLimitPlan(String name, List<Limit> limits, long limit, long burst, ZoneId zone) {
        this.name = name;
        this.limits = limits;
        this.limit = limit;
        this.burst = burst;
        this.zone = zone;
    }

    private RateLimitPlan(String name, List<Limit> limits, long limit, long burst) {
        this(name, limits, limit, burst, null);
    }

    /**
     * This plan in a customer's time zone: the bucket's {@link CalendarWindow calendar window} follows that zone's
     * days and months for this key (docs/guide.md#quotas-per-day-and-month). Without effect on a window of fixed
     * length. A key whose zone changes keeps its count; its open window ends at the sooner of its end and the new
     * zone's boundary.
     *
     * @param zone the customer's zone ({@code ZoneId.of("Europe/Paris")})
     * @return the plan in that zone
     * @throws NullPointerException if {@code zone} is {@code null}
     */
    public RateLimitPlan inZone(ZoneId zone) {
        return new RateLimitPlan(name, limits, limit, burst, Objects.requireNonNull(zone, "zone"));
    }

    /** {@return the zone {@link #inZone} gave, or empty for the bucket's own ({@code ratelimiter.buckets.<name>.zone})} */
    public Optional<ZoneId> zone() {
        return Optional.ofNullable(zone);
    }

    /**
     * One of the bucket's declared plans.
     *
     * @param name the plan's name, as listed in {@code ratelimiter.buckets.<bucket>.plans}; a name the bucket does
     *             not declare gets the bucket's own limits (counted in {@code rate_limiter_plan_misses_total})
     * @return the plan
     * @throws NullPointerException if {@code name} is {@code null}
     */
    public static RateLimitPlan named(String name) {
        return new RateLimitPlan(Objects.requireNonNull(name, "name"), List.of(), 0, 0);
    }

    /**
     * Explicit limits for a bucket of one window: {@code limit} per the bucket's window (a customer's contract).
     *
     * @param limit attempts per window, from 1 to {@link Bucket#MAX_LIMIT}
     * @return the plan, labelled {@link Bucket#EXPLICIT_PLAN} in metrics
     * @throws IllegalArgumentException if the limit is out of range
     */
    public static RateLimitPlan limit(long limit) {
        if (limit < 1 || limit > Bucket.MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be from 1 to " + Bucket.MAX_LIMIT + ", was " + limit);
        }
        return new RateLimitPlan(Bucket.EXPLICIT_PLAN, List.of(), limit, 0);
    }

    /**
     * Explicit limits, one per window of the bucket, of the same lengths (a plan changes limits, never windows).
     *
     * @param limits the limits, in any order, at least one
     * @param burst  for a token bucket, its capacity (0: the shortest window's limit); else 0
     * @return the plan, labelled {@link Bucket#EXPLICIT_PLAN} in metrics
     * @throws IllegalArgumentException if {@code limits} is empty or {@code burst} negative
     * @throws NullPointerException     if {@code limits} or one of them is {@code null}
     */
    public static RateLimitPlan limits(List<Limit> limits, long burst) {
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("explicit limits need at least one window");
        }
        if (burst < 0) {
            throw new IllegalArgumentException("burst must be 0 (the shortest window's limit) or more, was " + burst);
        }
        return new RateLimitPlan(Bucket.EXPLICIT_PLAN, List.copyOf(limits), 0, burst);
    }

    /** {@return the plan's name, or {@link Bucket#EXPLICIT_PLAN} for explicit limits} */
    public String name() {
        return name;
    }

    /** {@return whether this plan carries explicit limits rather than naming a declared plan} */
    public boolean explicit() {
        return name.equals(Bucket.EXPLICIT_PLAN);
    }

    /**
     * The bucket under these explicit limits.
     *
     * @param bucket the bucket under its own limits
     * @return the bucket under the limits, {@link Bucket#plan()} {@link Bucket#EXPLICIT_PLAN}; empty for a named plan
     * @throws IllegalArgumentException naming the bucket, if the limits do not fit its windows (another number of
     *                                  windows, other lengths, a burst on a bucket that is not a token bucket)
     */
    public Optional<Bucket> applyTo(Bucket bucket) {
        if (!explicit()) {
            return Optional.empty();
        }
        if (limit > 0) {
            if (bucket.hasSeveralWindows()) {
                throw new IllegalArgumentException("bucket '" + bucket.name() + "' has " + bucket.limits().size()
                        + " windows; give explicit limits for each with RateLimitPlan.limits(...)");
            }
            return Optional.of(bucket.withPlan(name, List.of(bucket.limits().get(0).withLimit(limit)), 0));
        }
        return Optional.of(bucket.withPlan(name, limits, burst));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RateLimitPlan plan && plan.name.equals(name) && plan.limits.equals(limits)
                && plan.limit == limit && plan.burst == burst && Objects.equals(plan.zone, zone);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, limits, limit, burst, zone);
    }

    @Override
    public String toString() {
        return (explicit() ? "explicit limits " + (limit > 0 ? String.valueOf(limit) : limits + " burst " + burst)
                : "plan " + name) + (zone == null ? "" : " in " + zone);
    }
}
