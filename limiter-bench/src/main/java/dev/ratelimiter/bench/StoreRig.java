package dev.ratelimiter.bench;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One shared store under test: its server, the contenders that use it, and the rows comparing them. The
 * library's two contenders (the store alone, the whole decision path) and the rows every store shares are here;
 * a store's rig adds its bare client loop, its own tool and its anchors.
 */
abstract class StoreRig implements AutoCloseable {

    static final String STORE = "library store";
    static final String PATH = "library decision path";
    static final String UNBATCHED = "library decision path, batching off";
    static final String TWO_BUCKETS = "library store, two buckets in one call";
    static final String TWO_CALLS = "library store, two buckets in two calls";
    static final String TOKEN_STORE = "library store, token bucket";
    static final String SLIDING_STORE = "library store, sliding window";
    static final String CALENDAR_STORE = "library store, calendar month";
    static final String PERMIT_PAIRS = "library store, permit take and give back";

    /** A refused hot key: 10 per minute, so nearly every attempt of the hot load is denied. */
    static final Bucket HOT = Bucket.of("bench-hot", 10, Duration.ofMinutes(1));
    /** A spread load's bucket: never refuses within a run. */
    static final Bucket SPREAD = Bucket.of("bench", 1_000_000_000L, Duration.ofMinutes(1));
    /**
     * The first of a method's two buckets (a second {@code @RateLimited}): never refuses, so the load's bucket is
     * always decided after it.
     */
    static final Bucket FIRST = Bucket.of("bench-first", 1_000_000_000L, Duration.ofMinutes(1));

    /** The token bucket of {@link #HOT}'s rate: 10 per minute, so nearly every attempt of the hot load is denied. */
    static final Bucket HOT_TOKENS = Bucket.of("bench-hot-tokens", List.of(new Limit(10,
            Duration.ofMinutes(1))), OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
    /**
     * A spread load's token bucket: never refuses within a run (10<sup>7</sup> per minute, a token every 6 µs, and
     * 10<sup>12</sup> tokens; {@link #SPREAD}'s 10<sup>9</sup> per minute is above a token bucket's one per µs).
     */
    static final Bucket SPREAD_TOKENS = Bucket.of("bench-tokens", List.of(new Limit(10_000_000L,
            Duration.ofMinutes(1))), OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 1_000_000_000_000L);

    /** The sliding window of {@link #HOT}'s rate: 10 per minute, so nearly every attempt of the hot load is denied. */
    static final Bucket HOT_SLIDING = Bucket.of("bench-hot-sliding", List.of(new Limit(10,
            Duration.ofMinutes(1))), OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
    /** A spread load's sliding window, {@link #SPREAD}'s rate: never refuses within a run. */
    static final Bucket SPREAD_SLIDING = Bucket.of("bench-sliding", List.of(new Limit(1_000_000_000L,
            Duration.ofMinutes(1))), OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);

    /** A calendar month of {@link #HOT}'s limit: 10 a month, so nearly every attempt of the hot load is denied. */
    static final Bucket HOT_MONTH = Bucket.of("bench-hot-month", List.of(Limit.perCalendar(10,
            CalendarWindow.MONTH)), OutagePolicy.FALLBACK);
    /** A spread load's calendar month, {@link #SPREAD}'s limit: never refuses within a run. */
    static final Bucket SPREAD_MONTH = Bucket.of("bench-month", List.of(Limit.perCalendar(1_000_000_000L,
            CalendarWindow.MONTH)), OutagePolicy.FALLBACK);

    /**
     * The permit rows' concurrency bucket, under every load: {@link Bucket#MAX_PERMITS} (10 000) permits per key, so
     * no take is refused, even of one hot key at 64 threads; leases of 30 s.
     */
    static final Bucket PERMITS = Bucket.concurrency("bench-permits", Bucket.MAX_PERMITS, Duration.ofSeconds(30),
            OutagePolicy.FALLBACK);

    private final List<AutoCloseable> resources = new ArrayList<>();

    static Bucket bucket(Load load) {
        return load.hot() ? HOT : SPREAD;
    }

    /** Such as {@code Valkey}. */
    abstract String name();

    /** The server's version and how it was started, for BENCHMARKS.md. */
    abstract String server();

    abstract List<Contender> contenders() throws Exception;

    abstract List<Comparison> comparisons();

    /** The store's limiter alone, on hashed keys, as the decider hands them to it. */
    static Contender libraryStore(LibraryPaths.Store store) {
        return storeOf(STORE, store, HOT, SPREAD);
    }

    /** The store's limiter alone deciding token buckets of the fixed-window rows' rates (issue 31's rows). */
    static Contender tokenStore(LibraryPaths.Store store) {
        return storeOf(TOKEN_STORE, store, HOT_TOKENS, SPREAD_TOKENS);
    }

    /** The store's limiter alone deciding sliding windows of the fixed-window rows' rates (issue 32's rows). */
    static Contender slidingStore(LibraryPaths.Store store) {
        return storeOf(SLIDING_STORE, store, HOT_SLIDING, SPREAD_SLIDING);
    }

    /**
     * The store's limiter alone deciding calendar months of the fixed-window rows' limits (issue 55's rows): the
     * time left until the month ends worked out per call ({@code CalendarPeriods}) and sent where a fixed window's
     * length is.
     */
    static Contender calendarStore(LibraryPaths.Store store) {
        return storeOf(CALENDAR_STORE, store, HOT_MONTH, SPREAD_MONTH);
    }

    /** The store's limiter alone, on hashed keys, deciding {@code hot} under a hot load, else {@code spread}. */
    private static Contender storeOf(String name, LibraryPaths.Store store, Bucket hot, Bucket spread) {
        return Contender.inJvm(name, load -> {
            Bucket bucket = load.hot() ? hot : spread;
            String[] keys = Keys.hashed(load.keys());
            return thread -> key -> store.limiter().consume(bucket, keys[key]).outcome()
                    != Verdict.Outcome.UNAVAILABLE;
        });
    }

    /**
     * The store's limiter alone taking a permit of {@link #PERMITS} for a call and giving it back, on hashed keys,
     * as the decision path does around a call of a concurrency bucket: two store calls, two round trips. A figure
     * counts pairs per second ({@code pairs/s}; p50 and p99 in µs per pair); a pair whose take was not allowed or
     * whose give-back failed is not counted ({@code not_decided}). Ids random and never {@link StorePermit#CHECK},
     * as the decision path draws them.
     */
    static Contender permitPairs(LibraryPaths.Store store) {
        return Contender.of(PERMIT_PAIRS, load -> {
            String[] keys = Keys.hashed(load.keys());
            Figure figure = ClosedLoop.run(PERMIT_PAIRS, load, thread -> key -> {
                StorePermit permit = new StorePermit(PERMITS, keys[key], permitId());
                boolean taken = store.limiter().take(permit).outcome() == Verdict.Outcome.ALLOWED;
                return store.limiter().giveBack(List.of(permit)) && taken;
            });
            return new Figure(PERMIT_PAIRS, figure.value(), "pairs/s", figure.details());
        });
    }

    private static long permitId() {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == StorePermit.CHECK);
        return id;
    }

    /**
     * A method of two buckets ({@link #FIRST}, then the load's) on the same key: one store call for both, as the
     * library decides them ({@code oneCall}), or one store call per bucket, as it did before deciding them together.
     * A figure counts calls of the method, not buckets.
     */
    static Contender twoBuckets(LibraryPaths.Store store, boolean oneCall) {
        return Contender.inJvm(oneCall ? TWO_BUCKETS : TWO_CALLS, load -> {
            Bucket bucket = bucket(load);
            String[] keys = Keys.hashed(load.keys());
            return thread -> key -> {
                if (oneCall) {
                    Verdict[] verdicts = BatchingLimiter.consumeAll(store.limiter(), List.of(
                            new StoreItem(FIRST, keys[key], 1), new StoreItem(bucket, keys[key], 1)));
                    return verdicts[verdicts.length - 1].outcome() != Verdict.Outcome.UNAVAILABLE;
                }
                return store.limiter().consume(FIRST, keys[key]).isAllowed()
                        && store.limiter().consume(bucket, keys[key]).outcome() != Verdict.Outcome.UNAVAILABLE;
            };
        });
    }

    /**
     * The whole decision path, on raw keys, as an application's call reaches it. Its figure also says how many
     * calls per second reached the store ({@code store_calls_per_s}, warm-up included): what a refused hot key
     * costs the shared store; and how many round trips carried them ({@code store_round_trips_per_s}): fewer than
     * the calls when waiting decisions shared round trips (docs/stores.md#batching).
     */
    static Contender libraryPath(LibraryPaths.Decision decision) {
        return libraryPath(PATH, decision);
    }

    /** The whole decision path under another name (batching off). */
    static Contender libraryPath(String name, LibraryPaths.Decision decision) {
        return Contender.of(name, load -> {
            Bucket bucket = bucket(load);
            String[] keys = Keys.raw(load.keys());
            long callsBefore = decision.storeCalls();
            long roundTripsBefore = decision.roundTrips();
            long began = System.nanoTime();
            Figure figure = ClosedLoop.run(name, load, thread -> key -> decision.decide(bucket, keys[key],
                    KeyNormalization.LOGIN).outcome() != Verdict.Outcome.UNAVAILABLE);
            double seconds = (System.nanoTime() - began) / 1e9;
            Map<String, Double> details = new LinkedHashMap<>(figure.details());
            details.put("store_calls_per_s", (decision.storeCalls() - callsBefore) / seconds);
            details.put("store_round_trips_per_s", (decision.roundTrips() - roundTripsBefore) / seconds);
            return new Figure(name, figure.value(), figure.unit(), details);
        });
    }

    /**
     * The rows of issue 11's goals: the store at its client's speed (≥ 0.95 × the bare loop), the path at the
     * store's (≥ 0.95), one hot refused key at 16 threads ≥ 10 × the store's own tool; the store beside its
     * tool; the other algorithms beside the fixed window; and a permit's take and give-back, in pairs/s, beside the
     * store's tool, in decisions/s (no goal).
     */
    static List<Comparison> libraryComparisons(String bare, String tool) {
        return List.of(
                Comparison.withGoal(STORE, bare, load -> Goal.atLeast(11, 0.95, "store / bare client loop",
                        "per call the store adds to the bare loop only its deadline (PostgreSQL: the bulkhead and "
                        + "the connection's network timeout) and the call's timing, and allocates no more "
                        + "(bytes_per_call); a miss within this machine's ±20 % run-to-run spread is closed by "
                        + "measuring on an idle machine, a lasting one by sharing round trips between concurrent "
                        + "decisions (Valkey pipelining, issue 11's stretch).")),
                Comparison.withGoal(PATH, STORE, load -> Goal.atLeast(11, 0.95, "decision path / store",
                        "the path adds about a microsecond of CPU to each store call (normalization, HMAC-SHA-256 "
                        + "on a reused digest, outage policy, the refusal cache's lookup, the breaker, two metric "
                        + "updates) against a round trip of 60 µs or more; a miss is within the run-to-run spread "
                        + "unless it repeats on an idle machine, where a profile of the path (JFR) would show "
                        + "what is left.")),
                Comparison.withGoal(PATH, tool, load -> load.hot() && load.threads() == 16
                        ? Goal.atLeast(11, 10, "one hot refused key / the store's own tool", "refusals answered "
                        + "from memory (`ratelimiter.deny-cache.max-age`) must be on; with them the store sees "
                        + "a few calls per second for the key.") : Goal.none()),
                Comparison.of(STORE, tool),
                Comparison.of(TWO_BUCKETS, TWO_CALLS),
                Comparison.withGoal(TOKEN_STORE, STORE, load -> Goal.atLeast(31, 0.9, 0.8, "token bucket / fixed window, "
                        + "store", "must hold 0.8: one script or statement either way, the token bucket's reading "
                        + "and writing one key or row per window as the fixed window does; a miss within this "
                        + "machine's run-to-run spread is noise.")),
                Comparison.withGoal(SLIDING_STORE, STORE, load -> Goal.atLeast(32, 0.9, 0.8, "sliding window / fixed "
                        + "window, store", "must hold 0.8: one script or statement either way, reading and writing "
                        + "one key or row per window as the fixed window does, with a second count in it; a miss "
                        + "within this machine's run-to-run spread is noise.")),
                Comparison.withGoal(CALENDAR_STORE, STORE, load -> Goal.atLeast(55, 0.9, 0.9, "calendar month / "
                        + "fixed window, store", "must hold 0.9: the same script or statement, the month's time left "
                        + "sent in place of the window's length (worked out per call from the period kept, "
                        + "CalendarPeriods); a miss within this machine's run-to-run spread is noise.")),
                Comparison.of(PERMIT_PAIRS, tool).named(PERMIT_PAIRS + ", in pairs/s (a pair is two round trips: "
                        + "the take, then the give-back) / " + tool + ", in decisions/s (one round trip each)"));
    }

    /**
     * Issue 29's rows: the path with batching on beside the store's own tool without pipelining (≥ 1.5 at 16 and 64
     * threads on spread keys, ≥ 1.0 must hold), beside its pipelined ceiling ({@code pipelined}, reported with the
     * fraction reached), and beside itself with batching off (≥ 0.95 at 1 thread: a lone decision goes at once).
     */
    static List<Comparison> batchingComparisons(String tool, String pipelined) {
        return List.of(
                Comparison.withGoal(PATH, tool, load -> !load.hot() && load.threads() >= 16
                        ? Goal.atLeast(29, 1.5, 1.0, "batched path / the store's tool, same clients, no pipelining",
                        "waiting decisions share one round trip (docs/stores.md#batching); a miss means the "
                        + "clients, not the server, are the bottleneck on this 2-core machine: the figure beside the "
                        + "pipelined ceiling says how much of it is left.") : Goal.none()),
                Comparison.of(PATH, pipelined),
                Comparison.withGoal(PATH, UNBATCHED, load -> load.threads() == 1
                        ? Goal.atLeast(29, 0.95, 0.95, "batched / unbatched path, 1 thread", "a lone decision goes at once, "
                        + "alone: a miss within the run-to-run spread is noise.") : Goal.none()));
    }

    /** Closes {@code resource} with the rig. */
    <T extends AutoCloseable> T keep(T resource) {
        resources.add(resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }
}
