package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Limit;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every class of contract cases shares: the store's limiter and clock, which the store's test builds before
 * each case ({@link RateLimiterContract#newLimiter}), its time and its buckets, and the helpers the cases decide
 * through. Each subclass holds the cases of one capability, and {@link RateLimiterContract} runs it as a nested class
 * named after that capability, so the report of a failing case says which rules the store broke.
 */
abstract class ContractCases {

    private final RateLimiterContract contract;
    /** The store's clock, {@link RateLimiterContract#clock}. */
    protected ManualClock clock;
    /** The store's limiter, {@link RateLimiterContract#limiter}. */
    protected Limiter limiter;

    ContractCases(RateLimiterContract contract) {
        this.contract = contract;
    }

    // Runs after RateLimiterContract's own @BeforeEach, which has built them for this case.
    @BeforeEach
    void takeTheStoresLimiter() {
        clock = contract.clock;
        limiter = contract.limiter;
    }

    /** How time passes for the store: {@link RateLimiterContract#time()}. */
    protected ContractTime time() {
        return contract.time();
    }

    /** A bucket unique to this case and run. */
    protected Bucket bucket(String name, long limit, Duration window) {
        return contract.bucket(name, limit, window);
    }

    /** A bucket of several windows unique to this case and run. */
    protected Bucket bucket(String name, Limit... limits) {
        return contract.bucket(name, limits);
    }

    /** A bucket of one calendar window in {@code zone}, unique to this case and run. */
    protected Bucket calendarBucket(String name, long limit, CalendarWindow calendar, ZoneId zone) {
        return contract.calendarBucket(name, limit, calendar, zone);
    }

    /** A token bucket unique to this case and run (burst 0: the shortest window's limit). */
    protected Bucket tokenBucket(String name, long burst, Limit... limits) {
        return contract.tokenBucket(name, burst, limits);
    }

    /** A sliding-window bucket unique to this case and run. */
    protected Bucket slidingWindow(String name, Limit... limits) {
        return contract.slidingWindow(name, limits);
    }

    /** A concurrency bucket unique to this case and run. */
    protected Bucket concurrencyBucket(String name, long permits, Duration lease) {
        return contract.concurrencyBucket(name, permits, lease);
    }

    /** A second replica's limiter on the same store ({@link RateLimiterContract#replica()}). */
    protected Limiter replica() {
        return contract.replica();
    }

    static Limit limit(long limit, Duration window) {
        return new Limit(limit, window);
    }

    /** Each window's remaining attempts, shortest window first. */
    static List<Long> remaining(Verdict verdict) {
        return verdict.windows().stream().map(Verdict.Window::remaining).toList();
    }

    /** 200 threads' first calls on one key of {@code bucket}, released at once; how many were allowed. */
    int admittedOfConcurrentFirstCalls(Bucket bucket) throws Exception {
        int threads = 200;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    Verdict verdict = limiter.consume(bucket, "first");
                    assertThat(verdict.outcome()).isNotEqualTo(Outcome.UNAVAILABLE);
                    return verdict.isAllowed();
                }));
            }
            int admitted = 0;
            for (Future<Boolean> result : results) {
                admitted += result.get(2, TimeUnit.MINUTES) ? 1 : 0;
            }
            return admitted;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Calls cost 1 until the first refusal, at most {@code most}; how many were allowed. */
    int admitted(Bucket bucket, int most) {
        return admitted(bucket, "k", most);
    }

    /** Calls of {@code key}, cost 1, until the first refusal, at most {@code most}; how many were allowed. */
    int admitted(Bucket bucket, String key, int most) {
        int admitted = 0;
        while (admitted < most && limiter.consume(bucket, key).isAllowed()) {
            admitted++;
        }
        return admitted;
    }

    /** Waits the refusal's Retry-After less a second (still refused), then a second more (allowed). */
    void assertRetryAfterTrue(Bucket bucket, String key, Verdict refused) {
        long seconds = refused.retryAfterSeconds();
        assertThat(seconds).isPositive();
        if (seconds > 1) {
            time().advance(Duration.ofSeconds(seconds - 1));
            assertThat(limiter.consume(bucket, key).outcome()).as("a second before Retry-After")
                    .isEqualTo(Outcome.DENIED);
        }
        time().advance(Duration.ofSeconds(1));
        assertThat(limiter.consume(bucket, key).outcome()).as("at Retry-After").isEqualTo(Outcome.ALLOWED);
    }
}
