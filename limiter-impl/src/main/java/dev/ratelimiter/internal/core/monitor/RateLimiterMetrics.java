package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The metrics port: what the limiter reports, whatever metrics library the server offers (docs/operations.md#metrics).
 * One adapter per library (MicroProfile Metrics, Micrometer) lives in the {@code metrics} package; {@link #NONE}
 * reports nothing. Tags are bounded: bucket names, plan labels (docs/plans.md), outcomes and backend names, never
 * keys.
 */
public interface RateLimiterMetrics extends OutageListener {

    /** Reports nothing. */
    RateLimiterMetrics NONE = new RateLimiterMetrics() {
    };

    /**
     * Registers every series at startup, so they read zero before the first event: per bucket, the decisions of
     * each plan label ({@link Bucket#NO_PLAN}, each declared plan, {@link Bucket#EXPLICIT_PLAN}) and each reason of
     * {@link #planMiss}; the plan cache's hits and misses; the backend's series.
     *
     * @param buckets  every configured bucket
     * @param plans    each bucket's declared plan names ({@code ratelimiter.buckets.<name>.plans}), by bucket name; a
     *                 bucket absent from the map declares none
     * @param backend  the configured store's name ({@code ratelimiter.backend}), the {@code backend} tag
     * @param degraded whether the backend is degraded, read when scraped (exported as 1 or 0)
     */
    default void register(Collection<Bucket> buckets, Map<String, Set<String>> plans, String backend,
                          BooleanSupplier degraded) {
    }

    /**
     * Registers the gauge of the settings a reload kept out (docs/live-limits.md), read when scraped.
     *
     * @param count how many problems the last reload kept out; 0 when every value read applied
     */
    default void rejectedSettings(java.util.function.IntSupplier count) {
    }

    /** One failed backend call (timeout, connection error, error reply). */
    default void backendError(String backend) {
    }

    /** One decision, after the outage policy; {@link Bucket#plan()} is its {@code plan} tag. */
    default void decision(Bucket bucket, Verdict.Outcome outcome) {
    }

    /**
     * One decision of a bucket in shadow mode that would have refused the call and let it go on instead
     * ({@code chain.ShadowMode}); reported instead of {@link #decision}, under the outcome {@code shadow_denied} or
     * {@code shadow_unavailable}.
     *
     * @param bucket a bucket in shadow mode
     * @param wouldBe what was decided: {@link Verdict.Outcome#DENIED} or {@link Verdict.Outcome#UNAVAILABLE}
     */
    default void shadowDecision(Bucket bucket, Verdict.Outcome wouldBe) {
    }

    /**
     * One decision its key's place on a list made (docs/guide.md#allow-and-deny-lists): a key on the deny list
     * refused without a store call, under the outcome {@code deny_listed}, or a key on the allow list let through
     * where the limits refused it, under {@code allow_listed}; reported instead of {@link #decision}.
     *
     * @param bucket the bucket whose list it is
     * @param denied {@code true} for the deny list, {@code false} for the allow list
     */
    default void listedDecision(Bucket bucket, boolean denied) {
    }

    /**
     * One allowed decision that left a window of the bucket below the near-limit share
     * ({@code ratelimiter.near-limit.percent}, docs/guide.md#near-the-limit); it is also reported as a
     * {@link #decision}.
     */
    default void nearLimit(Bucket bucket) {
    }

    /**
     * One refusal answered from memory, without a store call ({@code chain.DenyCacheLimiter}); it is also reported as a
     * {@link #decision} like any other.
     */
    default void cachedDenial(Bucket bucket) {
    }

    /**
     * A successful call's cost given back by a bucket that counts failures only
     * (docs/guide.md#counting-failures-only).
     *
     * @param bucket the bucket
     * @param given  true if it reached the store (or the fallback deciding in an outage), false if it was dropped
     */
    default void refund(Bucket bucket, boolean given) {
    }

    /**
     * A call's cost settled after it ran (docs/guide.md#costs-settled-after-the-call), whether or not it differed
     * from what the call reserved.
     *
     * @param bucket  the bucket
     * @param settled the call's actual cost, 0 or more
     * @param given   true if the difference reached the store (or the fallback deciding in an outage), or there was
     *                none; false if it was dropped
     */
    default void settlement(Bucket bucket, long settled, boolean given) {
    }

    /**
     * The permits this process holds for calls in flight of a concurrency bucket changed
     * (docs/guide.md#concurrency-limits): a permit taken (+1), given back or lost with its lease (-1).
     *
     * @param bucket the concurrency bucket
     * @param delta  +1 or -1
     */
    default void permitsInFlight(Bucket bucket, int delta) {
    }

    /**
     * Leases of a concurrency bucket's permits found ended: by a take in the store (another replica's, which died or
     * paused, or this one's), or by this process's renewal of a call still running.
     *
     * @param bucket the concurrency bucket
     * @param count  1 or more
     */
    default void expiredLeases(Bucket bucket, long count) {
    }

    /**
     * Registers the series of waiting calls and upstream holds (docs/guide.md#waiting-instead-of-refusing), after
     * {@link #register}, for the buckets whose calls wait or whose upstream holds them.
     *
     * @param buckets the buckets with {@code max-wait} or {@code upstream-hold-max}, each registered by
     *                {@link #register}
     */
    default void registerWaits(Collection<Bucket> buckets) {
    }

    /**
     * A call that held a turn to wait for its bucket ended its wait, or never started it.
     *
     * @param bucket  the bucket
     * @param outcome how the wait ended
     * @param millis  how long the call waited, milliseconds, 0 or more
     */
    default void waited(Bucket bucket, WaitOutcome outcome, long millis) {
    }

    /** An upstream's 429 or 503 with {@code Retry-After} held the bucket's key on every replica. */
    default void upstreamHold(Bucket bucket) {
    }

    /** How a call's wait for its bucket ended (docs/guide.md#waiting-instead-of-refusing). */
    enum WaitOutcome {
        /** It waited, and ran. */
        ADMITTED("admitted"),
        /** Refused: what it would have had to wait was beyond the bucket's max-wait (at once, or after waiting). */
        TIMED_OUT("timed_out"),
        /** Refused at once: max-waiting calls of the bucket were waiting in this process. */
        FULL("full"),
        /** Refused: its thread was interrupted while it waited. */
        INTERRUPTED("interrupted");

        private final String label;

        WaitOutcome(String label) {
            this.label = label;
        }

        /** {@return the metrics' {@code outcome} label} */
        public String label() {
            return label;
        }
    }

    /**
     * Registers the quota lease series of the buckets that lease quota (docs/guide.md#quota-leases-for-hot-keys), after
     * {@link #register}: leases taken and given back, quota given back unused, decisions made from a lease.
     *
     * @param buckets the buckets with {@code quota-lease-percent}, each registered by {@link #register}
     */
    default void registerQuotaLeases(Collection<Bucket> buckets) {
    }

    /**
     * A quota lease taken from the shared store: one round trip that counted {@code quota} attempts at once.
     *
     * @param bucket the bucket
     * @param quota  the attempts leased, 1 or more
     */
    default void quotaLeaseTaken(Bucket bucket, long quota) {
    }

    /**
     * A quota lease given back to the shared store with {@code unused} attempts it did not use (idle, another lease
     * needed, or the application stopping); a lease whose window ended, or used up, is not given back.
     *
     * @param bucket the bucket
     * @param unused the attempts given back, 1 or more
     */
    default void quotaLeaseReturned(Bucket bucket, long unused) {
    }

    /**
     * One decision made from this process's quota lease, without a store round trip.
     *
     * @param bucket the bucket
     */
    default void localDecision(Bucket bucket) {
    }

    /**
     * Why a call of a bucket with a plan resolver got the bucket's own limits (docs/plans.md), the
     * {@code reason} tag of {@code rate_limiter_plan_misses_total}.
     */
    enum PlanMiss {
        /** The resolver answered {@code null}. */
        NONE,
        /** The resolver named a plan the bucket does not declare. */
        UNDECLARED,
        /** The resolver threw. */
        ERROR,
        /** The resolver's explicit limits do not fit the bucket's windows, or the call's cost. */
        UNFIT;

        /** {@return the tag's value: the name in lower case} */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * A call of a bucket with a plan resolver that got the bucket's own limits instead of a plan.
     *
     * @param bucket the bucket, under its own limits
     * @param reason why
     */
    default void planMiss(Bucket bucket, PlanMiss reason) {
    }

    /**
     * One look-up of the plan cache ({@code ratelimiter.plans.cache-ttl}): a hit reused a resolver's answer, a miss
     * asked the resolver.
     */
    default void planCache(boolean hit) {
    }

    /** One call to the backend and how long it took, in nanoseconds. */
    default void backendCall(String backend, long nanos) {
    }

    /**
     * The application stops: unregisters what would outlive it in the metrics library, the gauges' callbacks into
     * the application, where that library belongs to the server rather than to the application (Open Liberty's
     * MicroProfile Telemetry SDK turned on for the whole server, docs/operations.md#opentelemetry). The counts
     * already recorded stay with the library.
     */
    default void close() {
    }
}
