package dev.ratelimiter.internal.metrics;

/**
 * The series every adapter registers, with the description and unit each library is given, so MicroProfile
 * Metrics and Micrometer describe them alike (the table of docs/operations.md#metrics).
 */
enum Series {

    DECISIONS("decisions", "Decisions per bucket, plan and outcome, after the outage policy; plan is none, a "
            + "declared plan's name or explicit (a customer's own limits); shadow_* outcomes are refusals of a bucket "
            + "in shadow mode, which let the call go on", Series.NONE),
    FALLBACKS("fallbacks", "Decisions made by the per-process fallback while the store was out", Series.NONE),
    FAIL_OPEN("fail_open", "Attempts allowed uncounted by a fail-open bucket while the store was out", Series.NONE),
    NEAR_LIMIT("near_limit", "Allowed decisions that left a window below ratelimiter.near-limit.percent of its "
            + "capacity", Series.NONE),
    CACHED_DENIALS("cached_denials", "Refusals answered from this process's memory without a store call",
            Series.NONE),
    REFUNDS("refunds", "Costs given back for successful calls by buckets that count failures only, per bucket and "
            + "outcome: given, or dropped when the store could not be reached", Series.NONE),
    SETTLEMENTS("settlements", "Calls whose cost was settled after they ran, per bucket and outcome: settled, or "
            + "dropped when the difference from what they reserved could not reach the store", Series.NONE),
    SETTLED_COST("settled_cost", "The costs calls settled after they ran turned out to have, summed per bucket",
            Series.NONE),
    PERMITS_IN_FLIGHT("permits_in_flight", "Permits this process holds for calls in flight, per concurrency bucket; "
            + "summed over replicas, the calls in flight of every key", Series.NONE),
    EXPIRED_LEASES("expired_leases", "Permits of a concurrency bucket whose lease ended before they were given back: "
            + "found by a take (a replica died or paused) or by this process's renewal (a call outlived its lease)",
            Series.NONE),
    QUOTA_LEASES("quota_leases", "Quota leases of a bucket with quota-lease-percent, per event: taken from the "
            + "store (one round trip counting a share of a key's quota), or returned with quota unused", Series.NONE),
    QUOTA_RETURNED("quota_returned", "Attempts of quota leases given back to the store unused", Series.NONE),
    LOCAL_DECISIONS("local_decisions", "Decisions made from this process's quota lease, without a store round trip",
            Series.NONE),
    WAITS("waits", "Calls of a bucket with max-wait that held a turn to wait, per outcome: admitted (waited, and "
            + "ran), timed_out (the wait would end past max-wait), full (max-waiting calls were waiting), interrupted",
            Series.NONE),
    WAITED("waited_milliseconds", "Milliseconds calls of a bucket with max-wait waited for their turn, summed",
            Series.NONE),
    UPSTREAM_HOLDS("upstream_holds", "Holds an upstream's 429 or 503 with Retry-After set on a key of a bucket with "
            + "upstream-hold-max", Series.NONE),
    PLAN_MISSES("plan_misses", "Calls of a bucket with a plan resolver that got the bucket's own limits, per "
            + "reason: none (no plan), undeclared (a plan the bucket does not declare), error (the resolver threw), "
            + "unfit (explicit limits that do not fit the bucket)", Series.NONE),
    PLAN_CACHE("plan_cache_lookups", "Look-ups of the plan cache: hit (a resolver's answer reused) or miss (the "
            + "resolver asked)", Series.NONE),
    BACKEND_ERRORS("backend_errors", "Failed store calls: timeouts, connection errors, failed probes", Series.NONE),
    REJECTED_SETTINGS("rejected_settings", "Settings the last reload kept out, each a problem naming its property; "
            + "0 when every value read applied", Series.NONE),
    DEGRADED("degraded", "1 while the store is out and buckets follow their outage policy, else 0", Series.NONE),
    BACKEND("backend", "Time of each store call", "nanoseconds");

    /** MicroProfile Metrics' unit of a count or a flag ({@code MetricUnits.NONE}). */
    static final String NONE = "none";

    private final String metric;
    private final String description;
    private final String unit;

    Series(String metric, String description, String unit) {
        this.metric = metric;
        this.description = description;
        this.unit = unit;
    }

    /** The name after the library's prefix ({@code rate_limiter_} or {@code rate_limiter.}). */
    String metric() {
        return metric;
    }

    /** One sentence for the series' HELP line. */
    String description() {
        return description;
    }

    /**
     * MicroProfile Metrics' unit of what the series records: {@link #NONE} for counts and the degraded flag;
     * {@code nanoseconds} for the call timer, the unit a MicroProfile {@code Timer} keeps (Payara's exporter scales
     * a timer's values from its declared unit to seconds, and names the series {@code _seconds} from it).
     * Micrometer's timer records in its registry's base time unit, seconds in Prometheus.
     */
    String unit() {
        return unit;
    }
}
