package dev.ratelimiter.contract;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.limiter.Limiter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The rules every store passes (docs/guide.md#fixed-windows), through the chain ({@link Limiter}) the library decides
 * with.
 * A store's test extends this class, builds its limiter in {@link #newLimiter(InstantSource)}, and says in
 * {@link #capabilities()} what the store's provider declares.
 *
 * <p>The cases come in one class per capability, each run as a nested class named after it, so a failing case's
 * report names the rules it belongs to: fixed windows ({@link FixedWindowCases}) and several windows
 * ({@link SeveralWindowsCases}), the core every store runs; token buckets ({@link TokenBucketCases}) and their
 * reservations ({@link ReservationCases}), sliding windows
 * ({@link SlidingWindowCases}), refunds ({@link RefundCases}) and settlements ({@link SettlementCases}), run where
 * the provider declares them; plans
 * ({@link PlanCases}) and settings changed ({@link SettingsChangeCases}), run for each algorithm the provider declares.
 * A case that needs a capability the store does not declare ({@link Requires}) is reported as skipped, naming it.
 *
 * <p>Time starts at a fixed instant on a {@link ManualClock}. A store that times windows itself overrides
 * {@link #time()} with real waiting, and lists in {@link #casesNotRun()} each case it cannot run (those tagged
 * {@link #CONTROLLED_CLOCK}) with the reason, which the test report shows. Every case uses its own buckets and
 * keys, so a shared store needs no cleaning between cases.
 */
@ExtendWith(ContractCaseFilter.class)
public abstract class RateLimiterContract {

    /**
     * Tag of the cases that need a controlled clock: instants finer than a second, or a clock stepped back and
     * forth (which a store timed by its server's clock never sees from the test).
     */
    public static final String CONTROLLED_CLOCK = "controlled-clock";

    /** Where the manual clock starts: a whole second, so window ends fall on whole seconds. */
    protected static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    protected ManualClock clock;
    protected Limiter limiter;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /**
     * Builds the limiter under test. Called before each case.
     *
     * @param clock the time source the limiter should read (ignored by a store-timed backend)
     */
    protected abstract Limiter newLimiter(InstantSource clock);

    /**
     * What the store under test declares, which decides the cases it runs: {@link Capability#declaredBy} its
     * provider, or {@link Capability#inMemory()} for the in-memory limiter. Called when each case is about to run,
     * before {@link #newLimiter}.
     *
     * @return the store's capabilities; empty for a store of fixed windows without refunds
     */
    protected abstract Set<Capability> capabilities();

    /**
     * The cases this store cannot run for a reason of its own (a window timed by its server's clock), by method
     * name, each with the reason; reported as skipped with that reason. A case of a capability the store does not
     * declare needs no entry here: {@link #capabilities()} leaves it out. Empty by default.
     */
    protected Map<String, String> casesNotRun() {
        return Map.of();
    }

    /**
     * A second replica's limiter on the same store, built once per case that asks for it: a chain of its own whose
     * store shares this one's state (another client of the same server). The default is the limiter under test
     * itself, for a store whose state lives in this process (in memory, one process is one replica).
     */
    protected Limiter replica() {
        return limiter;
    }

    /** A concurrency bucket unique to this case and run, {@link OutagePolicy#FALLBACK}. */
    protected Bucket concurrencyBucket(String name, long permits, Duration lease) {
        return Bucket.concurrency(name + "-" + run, permits, lease, OutagePolicy.FALLBACK);
    }

    /** How time passes; the manual clock by default. */
    protected ContractTime time() {
        return ContractTime.manual(clock);
    }

    @BeforeEach
    void createLimiter() {
        clock = new ManualClock(START);
        limiter = newLimiter(clock);
    }

    /** A bucket unique to this case and run. */
    protected Bucket bucket(String name, long limit, Duration window) {
        return Bucket.of(name + "-" + run, limit, window);
    }

    /** A bucket of several windows unique to this case and run. */
    protected Bucket bucket(String name, Limit... limits) {
        return Bucket.of(name + "-" + run, List.of(limits), OutagePolicy.FALLBACK);
    }

    /** A bucket of one calendar window in {@code zone}, unique to this case and run. */
    protected Bucket calendarBucket(String name, long limit, CalendarWindow calendar, ZoneId zone) {
        return new Bucket(name + "-" + run, List.of(Limit.perCalendar(limit, calendar)), OutagePolicy.FALLBACK,
                Algorithm.FIXED_WINDOW, 0, Bucket.NO_PLAN, zone);
    }

    /** A token bucket unique to this case and run (burst 0: the shortest window's limit). */
    protected Bucket tokenBucket(String name, long burst, Limit... limits) {
        return Bucket.of(name + "-" + run, List.of(limits), OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET,
                burst);
    }

    /** A sliding-window bucket unique to this case and run. */
    protected Bucket slidingWindow(String name, Limit... limits) {
        return Bucket.of(name + "-" + run, List.of(limits), OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW,
                0);
    }

    // The classes of cases, run against the store of this instance (JUnit builds it, and runs newLimiter, for
    // each case of each nested class). The display name is the one a report shows as the case's class.

    @Nested
    @DisplayName("fixed windows")
    class FixedWindows extends FixedWindowCases {
        FixedWindows() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("calendar windows")
    class CalendarWindows extends CalendarWindowCases {
        CalendarWindows() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("several windows")
    class SeveralWindows extends SeveralWindowsCases {
        SeveralWindows() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("token buckets")
    class TokenBuckets extends TokenBucketCases {
        TokenBuckets() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("reservations")
    class TokenReservations extends ReservationCases {
        TokenReservations() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("sliding windows")
    class SlidingWindows extends SlidingWindowCases {
        SlidingWindows() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("refunds")
    class Refunds extends RefundCases {
        Refunds() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("costs settled after the call")
    class Settlements extends SettlementCases {
        Settlements() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("plans")
    class Plans extends PlanCases {
        Plans() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("settings changed")
    class SettingsChanged extends SettingsChangeCases {
        SettingsChanged() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("concurrency limits")
    class ConcurrencyLimits extends PermitCases {
        ConcurrencyLimits() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("quota leases")
    class QuotaLeases extends QuotaLeaseCases {
        QuotaLeases() {
            super(RateLimiterContract.this);
        }
    }

    @Nested
    @DisplayName("blocks after a refusal")
    class Blocks extends BlockCases {
        Blocks() {
            super(RateLimiterContract.this);
        }
    }
}
