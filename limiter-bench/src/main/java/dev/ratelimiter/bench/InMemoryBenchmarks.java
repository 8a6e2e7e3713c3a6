package dev.ratelimiter.bench;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.Limit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.spi.StorePermit;
import io.github.bucket4j.BandwidthBuilder;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Section 1's JMH benchmarks: the in-memory store (a consume, or a concurrency permit taken and given back) and
 * the whole in-memory decision, beside the ConcurrentHashMap + AtomicLong floor and other in-process limiters, each
 * on one key shared by every thread and never refusing within a run; average time in nanoseconds per call of a
 * method (one decision, or one pair). A new row is a new {@code @Benchmark} method and an entry in
 * {@link InMemorySection}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class InMemoryBenchmarks {

    static final Bucket BUCKET = Bucket.of("bench", 1_000_000_000_000L, Duration.ofHours(1));
    /**
     * A token bucket that never refuses within a run: 10<sup>9</sup> per hour (a token every 3 µs, the fastest rate
     * near the fixed window's that a token bucket takes) and 10<sup>12</sup> tokens.
     */
    static final Bucket TOKEN_BUCKET = Bucket.of("bench-tokens", List.of(new Limit(1_000_000_000L,
            Duration.ofHours(1))), dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET,
            1_000_000_000_000L);
    /** A sliding window that never refuses within a run, the fixed window's limit and window. */
    static final Bucket SLIDING_WINDOW = Bucket.of("bench-sliding", List.of(new Limit(1_000_000_000_000L,
            Duration.ofHours(1))), dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
    /** A calendar month that never refuses within a run, the fixed window's limit. */
    static final Bucket CALENDAR_MONTH = Bucket.of("bench-month", List.of(Limit.perCalendar(1_000_000_000_000L,
            dev.ratelimiter.CalendarWindow.MONTH)), dev.ratelimiter.OutagePolicy.FALLBACK);
    /**
     * A concurrency bucket that never refuses within a run: {@link Bucket#MAX_PERMITS} (10 000) permits per key,
     * leases of {@link Bucket#MAX_LEASE} (1 hour), so the permit {@link #setUp} takes holds for the whole run.
     */
    static final Bucket PERMITS = Bucket.concurrency("bench-permits", Bucket.MAX_PERMITS, Bucket.MAX_LEASE,
            dev.ratelimiter.OutagePolicy.FALLBACK);
    private static final String RAW_KEY = "user-1@example.com";
    /** The id of the permit {@link #setUp} takes and keeps, so the key's permits exist throughout the run. */
    private static final long KEPT_PERMIT = -1;

    private MemoryRateLimiter store;
    private String hashedKey;
    private LibraryPaths.Decision decision;
    private ConcurrentHashMap<String, AtomicLong> floor;
    private InstantSource storeClock;
    private io.github.bucket4j.Bucket bucket4j;
    private io.github.resilience4j.ratelimiter.RateLimiter resilience4j;
    private com.google.common.util.concurrent.RateLimiter guava;

    @Setup(Level.Trial)
    public void setUp() {
        store = new MemoryRateLimiter(LibraryPaths.memoryClock(), 100_000);
        hashedKey = LibraryPaths.hashedKey(RAW_KEY);
        store.consume(BUCKET, hashedKey);
        store.consume(TOKEN_BUCKET, hashedKey);
        store.consume(SLIDING_WINDOW, hashedKey);
        store.consume(CALENDAR_MONTH, hashedKey);
        store.take(new StorePermit(PERMITS, hashedKey, KEPT_PERMIT));
        decision = LibraryPaths.Decision.memory(List.of(BUCKET, TOKEN_BUCKET, SLIDING_WINDOW, CALENDAR_MONTH),
                100_000);
        floor = new ConcurrentHashMap<>();
        floor.put(hashedKey, new AtomicLong());
        storeClock = LibraryPaths.memoryClock();
        bucket4j = io.github.bucket4j.Bucket.builder().addLimit(BandwidthBuilder.builder()
                .capacity(BUCKET.limit()).refillIntervally(BUCKET.limit(), BUCKET.window()).build()).build();
        resilience4j = io.github.resilience4j.ratelimiter.RateLimiter.of("bench", RateLimiterConfig.custom()
                .limitForPeriod(Integer.MAX_VALUE).limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO).build());
        guava = com.google.common.util.concurrent.RateLimiter.create(1e12);
    }

    /** Keys never seen before, per thread: a store of the thread's own, replaced when its keys run out. */
    @State(Scope.Thread)
    public static class NewKeys {
        private static final int COUNT = 1 << 16;
        private static final AtomicInteger THREADS = new AtomicInteger();
        String[] keys;
        int next;
        MemoryRateLimiter store;

        @Setup(Level.Trial)
        public void setUp() {
            int thread = THREADS.incrementAndGet();
            keys = new String[COUNT];
            for (int i = 0; i < COUNT; i++) {
                keys[i] = LibraryPaths.hashedKey("user-" + thread + "-" + i + "@example.com");
            }
            store = new MemoryRateLimiter(LibraryPaths.memoryClock(), COUNT);
        }

        String nextKey() {
            if (next == COUNT) {
                next = 0;
                store = new MemoryRateLimiter(LibraryPaths.memoryClock(), COUNT);
            }
            return keys[next++];
        }
    }

    /**
     * Each thread's permit of {@link #PERMITS} on the shared key, made once: its id from a counter (distinct per
     * thread, never {@link StorePermit#CHECK}), so a pair allocates nothing but what the store does (B/op, bytes
     * per pair).
     */
    @State(Scope.Thread)
    public static class Permit {
        private static final AtomicLong IDS = new AtomicLong();
        StorePermit permit;
        List<StorePermit> given;

        @Setup(Level.Trial)
        public void setUp() {
            permit = new StorePermit(PERMITS, LibraryPaths.hashedKey(RAW_KEY), IDS.incrementAndGet());
            given = List.of(permit);
        }
    }

    @Benchmark
    public Verdict storeConsumeExistingKey() {
        return store.consume(BUCKET, hashedKey);
    }

    @Benchmark
    public Verdict storeConsumeNewKey(NewKeys keys) {
        String key = keys.nextKey();
        return keys.store.consume(BUCKET, key);
    }

    /**
     * A permit's pair on the in-memory store, in nanoseconds per pair: the thread's permit taken on the key (which
     * holds {@link #KEPT_PERMIT} too, so it exists as a counted key does), then given back.
     */
    @Benchmark
    public Verdict storeTakeAndGiveBackExistingKey(Permit permit) {
        Verdict taken = store.take(permit.permit);
        store.giveBack(permit.given);
        return taken;
    }

    @Benchmark
    public Verdict decision() {
        return decision.decide(BUCKET, RAW_KEY, KeyNormalization.LOGIN);
    }

    /** A call reserving 1 and settled at 3 after it ran: the decision and a debit of 2 down the chain. */
    @Benchmark
    public Verdict settledDecision() {
        return decision.settled(BUCKET, RAW_KEY, KeyNormalization.LOGIN, 3);
    }

    @Benchmark
    public Verdict tokenBucketStoreConsumeExistingKey() {
        return store.consume(TOKEN_BUCKET, hashedKey);
    }

    @Benchmark
    public Verdict tokenBucketDecision() {
        return decision.decide(TOKEN_BUCKET, RAW_KEY, KeyNormalization.LOGIN);
    }

    @Benchmark
    public Verdict slidingWindowStoreConsumeExistingKey() {
        return store.consume(SLIDING_WINDOW, hashedKey);
    }

    @Benchmark
    public Verdict slidingWindowDecision() {
        return decision.decide(SLIDING_WINDOW, RAW_KEY, KeyNormalization.LOGIN);
    }

    @Benchmark
    public Verdict calendarStoreConsumeExistingKey() {
        return store.consume(CALENDAR_MONTH, hashedKey);
    }

    @Benchmark
    public Verdict calendarDecision() {
        return decision.decide(CALENDAR_MONTH, RAW_KEY, KeyNormalization.LOGIN);
    }

    @Benchmark
    public long floorMapAtomicLong() {
        return floor.get(hashedKey).incrementAndGet();
    }

    /** The one clock read of {@link #storeConsumeExistingKey}, as {@code store} reads it: what no store can skip. */
    @Benchmark
    public long storeClockRead() {
        return storeClock.millis();
    }

    @Benchmark
    public boolean bucket4jLocal() {
        return bucket4j.tryConsume(1);
    }

    @Benchmark
    public boolean resilience4j() {
        return resilience4j.acquirePermission();
    }

    @Benchmark
    public boolean guava() {
        return guava.tryAcquire();
    }
}
