package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.OutageListener;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.testing.LogCapture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

class ShadowModeTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final Bucket trial = Bucket.of("trial", 2, Duration.ofMinutes(1));
    private final Bucket login = Bucket.of("login", 2, Duration.ofMinutes(1));
    private final List<String> reported = new ArrayList<>();
    private final RateLimiterMetrics metrics = new RateLimiterMetrics() {
        @Override
        public void shadowDecision(Bucket bucket, Outcome wouldBe) {
            reported.add(bucket.name() + ":" + wouldBe);
        }
    };
    private final MemoryRateLimiter store = new MemoryRateLimiter(clock, 100);

    private ShadowMode shadow(int maxKeys) {
        return new ShadowMode(Set.of("trial"), clock, maxKeys, metrics);
    }

    /** What the decider does with the chain's verdict. */
    private static Verdict decide(ShadowMode shadow, MemoryRateLimiter store, Bucket bucket, String key) {
        Verdict verdict = store.consume(bucket, key);
        return verdict.outcome() != Outcome.ALLOWED && shadow.covers(bucket)
                ? shadow.letThrough(bucket, key, verdict) : verdict;
    }

    @Test
    @DisplayName("past the limit a shadow bucket's calls go on: ALLOWED, remaining 0, the window's time left; reported as shadow DENIED")
    void refusalLetThrough() {
        ShadowMode shadow = shadow(100);
        List<Verdict> verdicts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            verdicts.add(decide(shadow, store, trial, "hash-a"));
            clock.advance(Duration.ofSeconds(10));
        }

        assertThat(verdicts).extracting(Verdict::outcome).containsOnly(Outcome.ALLOWED);
        assertThat(verdicts).extracting(Verdict::remaining).containsExactly(1L, 0L, 0L, 0L);
        assertThat(verdicts.get(3).resetAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(verdicts.get(3).limit()).isEqualTo(2);
        assertThat(reported).containsExactly("trial:DENIED", "trial:DENIED");
    }

    @Test
    @DisplayName("an enforced bucket is not covered: its refusal stays a refusal and is not reported as shadow")
    void enforcedBucketUntouched() {
        ShadowMode shadow = shadow(100);
        for (int i = 0; i < 2; i++) {
            decide(shadow, store, login, "hash-a");
        }
        assertThat(decide(shadow, store, login, "hash-a").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(shadow.covers(login)).isFalse();
        assertThat(reported).isEmpty();
    }

    @Test
    @DisplayName("a fail-closed outage of a shadow bucket lets the call go on, reported as shadow UNAVAILABLE, not logged")
    void unavailableLetThrough() {
        ShadowMode shadow = shadow(100);
        Bucket failClosed = Bucket.of("trial", 2, Duration.ofMinutes(1), OutagePolicy.FAIL_CLOSED);
        OutagePolicyLimiter chain = new OutagePolicyLimiter(new MemoryRateLimiter(clock, 1), Optional.empty(),
                OutageListener.NONE);
        chain.consume(failClosed, "first");
        Verdict atCap = chain.consume(failClosed, "second");
        assertThat(atCap.outcome()).as("the chain's own verdict").isEqualTo(Outcome.UNAVAILABLE);

        try (LogCapture log = LogCapture.of(ShadowMode.class)) {
            Verdict verdict = shadow.letThrough(failClosed, "second", atCap);

            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(verdict.remaining()).isZero();
            assertThat(log.messages(Level.INFO)).isEmpty();
        }
        assertThat(reported).containsExactly("trial:UNAVAILABLE");
    }

    @Test
    @DisplayName("a bucket of several windows: the log names the window that would refuse, not the bucket's first")
    void loggedWithTheRefusingWindow() {
        Bucket burstAndHour = Bucket.of("trial", List.of(new Limit(10, Duration.ofSeconds(1)),
                new Limit(3, Duration.ofHours(1))), dev.ratelimiter.OutagePolicy.FALLBACK);
        ShadowMode shadow = shadow(100);
        try (LogCapture log = LogCapture.of(ShadowMode.class)) {
            for (int i = 0; i < 4; i++) {
                decide(shadow, store, burstAndHour, "hash-a");
            }
            assertThat(log.messages(Level.INFO)).singleElement().satisfies(message ->
                    assertThat(message).contains("limit 3 per 3600 s"));
        }
    }

    @Test
    @DisplayName("a would-be refusal is logged at INFO once per key and window, with the hashed key only; again in the next window")
    void loggedOncePerKeyAndWindow() {
        ShadowMode shadow = shadow(100);
        try (LogCapture log = LogCapture.of(ShadowMode.class)) {
            for (int i = 0; i < 5; i++) {
                decide(shadow, store, trial, "hash-a");
                decide(shadow, store, trial, "hash-b");
            }
            assertThat(log.messages(Level.INFO)).hasSize(2).satisfiesExactly(
                    message -> assertThat(message).contains("bucket 'trial' would refuse key hash-a",
                            "limit 2 per 60 s", "the call goes on"),
                    message -> assertThat(message).contains("key hash-b"));
            assertThat(log.records(Level.INFO)).allSatisfy(record ->
                    assertThat(record.getLevel()).isEqualTo(Level.INFO));

            clock.advance(Duration.ofSeconds(59));
            decide(shadow, store, trial, "hash-a");
            assertThat(log.messages(Level.INFO)).as("same window").hasSize(2);

            clock.advance(Duration.ofSeconds(1));
            for (int i = 0; i < 4; i++) {
                decide(shadow, store, trial, "hash-a");
            }
            assertThat(log.messages(Level.INFO)).as("the next window's first would-be refusal").hasSize(3);
        }
    }

    @Test
    @DisplayName("the log's memory is bounded per bucket: past the cap new keys are counted, not logged, warned once; a sweep frees ended windows")
    void boundedMemory() {
        ShadowMode shadow = shadow(2);
        try (LogCapture log = LogCapture.of(ShadowMode.class)) {
            for (String key : List.of("k1", "k2", "k3", "k4")) {
                for (int i = 0; i < 3; i++) {
                    decide(shadow, store, trial, key);
                }
            }
            assertThat(shadow.remembered(trial)).isEqualTo(2);
            assertThat(log.messages(Level.INFO)).filteredOn(message -> message.contains("would refuse"))
                    .hasSize(2);
            assertThat(log.messages(Level.WARNING)).singleElement().satisfies(message ->
                    assertThat(message).contains("bucket 'trial'", "ratelimiter.memory.max-keys"));
            assertThat(reported).as("every would-be refusal counted").hasSize(4);

            assertThat(shadow.sweep()).as("nothing ended yet").isZero();
            clock.advance(Duration.ofMinutes(1));
            assertThat(shadow.sweep()).isEqualTo(2);
            assertThat(shadow.remembered(trial)).isZero();
            for (int i = 0; i < 3; i++) {
                decide(shadow, store, trial, "k3");
            }
            assertThat(log.messages(Level.INFO)).filteredOn(message -> message.contains("key k3")).hasSize(1);
            assertThat(log.messages(Level.WARNING)).hasSize(1);
        }
    }
}
