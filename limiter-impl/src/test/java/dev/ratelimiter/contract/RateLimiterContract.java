package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixed-window rules (the README's "Fixed windows") that every {@link RateLimiter} passes. A backend's test
 * extends this class and builds its limiter in {@link #newLimiter(InstantSource)}.
 *
 * <p>Time starts at a fixed instant on a {@link ManualClock}. A backend that times windows itself overrides
 * {@link #time()} with real waiting, and lists in {@link #casesNotRun()} each case it cannot run (those tagged
 * {@link #CONTROLLED_CLOCK}) with the reason, which the test report shows. Every case uses its own buckets and
 * keys, so a shared store needs no cleaning between cases.
 */
@ExtendWith(ContractCaseFilter.class)
public abstract class RateLimiterContract {

    /** Tag of the cases that need instants finer than a second, which only a controlled clock gives. */
    public static final String CONTROLLED_CLOCK = "controlled-clock";

    /** Where the manual clock starts: a whole second, so window ends fall on whole seconds. */
    protected static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    protected ManualClock clock;
    protected RateLimiter limiter;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /**
     * Builds the limiter under test. Called before each case.
     *
     * @param clock the time source the limiter should read (ignored by a store-timed backend)
     */
    protected abstract RateLimiter newLimiter(InstantSource clock);

    /**
     * The cases this backend cannot run, by method name, each with the reason; reported as skipped with that
     * reason. Empty by default: a backend driven by the clock runs every case.
     */
    protected Map<String, String> casesNotRun() {
        return Map.of();
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
        return new Bucket(name + "-" + run, limit, window);
    }

    @Test
    @DisplayName("limit 5: five attempts allowed with remaining 4, 3, 2, 1, 0; the sixth and later denied")
    void fiveAllowedThenDenied() {
        Bucket bucket = bucket("five", 5, Duration.ofSeconds(60));
        List<Long> remaining = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Verdict verdict = limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(verdict.limit()).isEqualTo(5);
            remaining.add(verdict.remaining());
        }
        assertThat(remaining).containsExactly(4L, 3L, 2L, 1L, 0L);
        for (int i = 0; i < 3; i++) {
            Verdict denied = limiter.consume(bucket, "k");
            assertThat(denied.outcome()).isEqualTo(Outcome.DENIED);
            assertThat(denied.remaining()).isZero();
        }
    }

    @Test
    @DisplayName("the first attempt's window lasts the whole window")
    void firstAttemptResetsAfterWholeWindow() {
        Bucket bucket = bucket("first", 3, Duration.ofSeconds(2));
        Verdict first = limiter.consume(bucket, "k");
        assertThat(first.resetAfter()).isLessThanOrEqualTo(Duration.ofSeconds(2)).isPositive();
        assertThat(first.retryAfterSeconds()).isEqualTo(2);
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("the window ends exactly `window` after the first attempt; the attempt at that instant opens a new window with count 1")
    void windowEndsExactlyAfterWindow() {
        Bucket bucket = bucket("edge", 2, Duration.ofSeconds(60));
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        time().advance(Duration.ofSeconds(60).minusMillis(1));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        time().advance(Duration.ofMillis(1));
        Verdict reopened = limiter.consume(bucket, "k");
        assertThat(reopened.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(reopened.remaining()).isEqualTo(1); // count 1 of limit 2
        assertThat(reopened.resetAfter()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    @DisplayName("a new window opens once the old one has passed")
    void newWindowAfterWindowPassed() {
        Bucket bucket = bucket("pass", 1, Duration.ofSeconds(1));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
        time().advance(Duration.ofMillis(1100));
        Verdict reopened = limiter.consume(bucket, "k");
        assertThat(reopened.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(reopened.remaining()).isZero();
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("denied attempts never extend the window")
    void deniedAttemptsDoNotExtendWindow() {
        Bucket bucket = bucket("extend", 1, Duration.ofSeconds(60));
        limiter.consume(bucket, "k");
        time().advance(Duration.ofSeconds(30));
        Verdict denied = limiter.consume(bucket, "k");
        assertThat(denied.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(denied.resetAfter()).isEqualTo(Duration.ofSeconds(30));
        time().advance(Duration.ofSeconds(29));
        assertThat(limiter.consume(bucket, "k").resetAfter()).isEqualTo(Duration.ofSeconds(1));
        time().advance(Duration.ofSeconds(1));
        assertThat(limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("keys of one bucket are counted apart")
    void keysAreIndependent() {
        Bucket bucket = bucket("keys", 1, Duration.ofSeconds(60));
        assertThat(limiter.consume(bucket, "a").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(bucket, "a").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(bucket, "b").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("one key in two buckets is counted apart")
    void bucketsAreIndependent() {
        Bucket one = bucket("one", 1, Duration.ofSeconds(60));
        Bucket two = bucket("two", 1, Duration.ofSeconds(60));
        assertThat(limiter.consume(one, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(one, "k").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(limiter.consume(two, "k").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("reset clears one key and leaves the others")
    void resetClearsOneKey() {
        Bucket bucket = bucket("reset", 2, Duration.ofSeconds(60));
        limiter.consume(bucket, "a");
        limiter.consume(bucket, "a");
        limiter.consume(bucket, "b");
        limiter.reset(bucket, "a");
        Verdict afterReset = limiter.consume(bucket, "a");
        assertThat(afterReset.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(afterReset.remaining()).isEqualTo(1);
        Verdict other = limiter.consume(bucket, "b");
        assertThat(other.remaining()).isZero();
    }

    @Test
    @DisplayName("reset is idempotent and safe for a key never seen")
    void resetIsIdempotent() {
        Bucket bucket = bucket("idem", 2, Duration.ofSeconds(60));
        limiter.reset(bucket, "never-seen");
        limiter.consume(bucket, "k");
        limiter.reset(bucket, "k");
        limiter.reset(bucket, "k");
        assertThat(limiter.consume(bucket, "k").remaining()).isEqualTo(1);
        assertThat(limiter.consume(bucket, "never-seen").remaining()).isEqualTo(1);
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("60 s window exhausted at t = 10.3 s: Retry-After 50; at t = 59.6 s it is 1")
    void retryAfterRoundsUp() {
        Bucket bucket = bucket("retry", 3, Duration.ofSeconds(60));
        limiter.consume(bucket, "k");
        time().advance(Duration.ofMillis(10_300));
        limiter.consume(bucket, "k");
        limiter.consume(bucket, "k");
        Verdict denied = limiter.consume(bucket, "k");
        assertThat(denied.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(denied.retryAfterSeconds()).isEqualTo(50);
        time().advance(Duration.ofMillis(59_600 - 10_300));
        assertThat(limiter.consume(bucket, "k").retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    @Tag(CONTROLLED_CLOCK)
    @DisplayName("Retry-After stays within 1..window at every instant of the window")
    void retryAfterWithinOneToWindow() {
        Bucket bucket = bucket("bounds", 1, Duration.ofSeconds(60));
        limiter.consume(bucket, "k");
        for (int step = 0; step < 600; step++) {
            Verdict verdict = limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.DENIED);
            assertThat(verdict.retryAfterSeconds()).isBetween(1L, 60L);
            time().advance(Duration.ofMillis(99));
        }
    }

    @Test
    @DisplayName("16 threads x 2 000 attempts on one key admit exactly the limit")
    void concurrentAttemptsAdmitExactlyLimit() throws Exception {
        Bucket bucket = bucket("race", 1_000, Duration.ofSeconds(60));
        int threads = 16;
        int attempts = 2_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Callable<Integer> worker = () -> {
                    start.await();
                    int allowed = 0;
                    for (int i = 0; i < attempts; i++) {
                        Verdict verdict = limiter.consume(bucket, "hot");
                        assertThat(verdict.outcome()).isNotEqualTo(Outcome.UNAVAILABLE);
                        if (verdict.isAllowed()) {
                            allowed++;
                        }
                    }
                    return allowed;
                };
                results.add(pool.submit(worker));
            }
            int admitted = 0;
            for (Future<Integer> result : results) {
                admitted += result.get(2, TimeUnit.MINUTES);
            }
            assertThat(admitted).isEqualTo(1_000);
        } finally {
            pool.shutdownNow();
        }
    }
}
