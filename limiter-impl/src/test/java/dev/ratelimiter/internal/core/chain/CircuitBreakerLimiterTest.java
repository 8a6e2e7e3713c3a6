package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.monitor.BackendStatus;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class CircuitBreakerLimiterTest {

    private final Bucket bucket = Bucket.of("b", 10, Duration.ofSeconds(60));
    private final AtomicBoolean storeUp = new AtomicBoolean(true);
    private final AtomicInteger storeCalls = new AtomicInteger();
    private final AtomicInteger probes = new AtomicInteger();
    /** Probes still to throw an Error, as a store with a broken class path or a failed assertion would. */
    private final AtomicInteger probeErrors = new AtomicInteger();
    private final Limiter store = new Limiter() {
        @Override
        public Verdict consume(Bucket bucket, String key, long cost) {
            storeCalls.incrementAndGet();
            return storeUp.get() ? Verdict.allowed(bucket.limit(), 9, Duration.ofSeconds(60))
                    : Verdict.unavailable(bucket.limit(), Duration.ZERO);
        }

        @Override
        public void reset(Bucket bucket, String key) {
            storeCalls.incrementAndGet();
        }

        @Override
        public boolean refund(List<StoreRefund> refunds) {
            return false; // these tests give nothing back
        }
    };
    private final BackendMonitor monitor =
            new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE);
    private final CircuitBreakerLimiter breaker = new CircuitBreakerLimiter(store, () -> {
        probes.incrementAndGet();
        if (probeErrors.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
            throw new NoClassDefFoundError("redis/clients/jedis/exceptions/JedisNoScriptException");
        }
        if (!storeUp.get()) {
            throw new java.io.IOException("connection refused");
        }
    }, monitor, InstantSource.system(),
            new BreakerSettings(3, Duration.ofMillis(50), Duration.ofMillis(400), 3));

    @AfterEach
    void close() {
        breaker.close();
    }

    @Test
    @DisplayName("two failures in a row leave it closed; a success in between resets the count")
    void staysClosedBelowThreshold() {
        storeUp.set(false);
        breaker.consume(bucket, "k");
        breaker.consume(bucket, "k");
        storeUp.set(true);
        breaker.consume(bucket, "k");
        storeUp.set(false);
        breaker.consume(bucket, "k");
        breaker.consume(bucket, "k");
        assertThat(breaker.isOpen()).isFalse();
        assertThat(monitor.status().state()).isEqualTo(BackendState.OK);
    }

    @Test
    @DisplayName("opens after 3 consecutive failures; while open the store is not called and the monitor says degraded")
    void opensAndKeepsCallsAway() {
        storeUp.set(false);
        for (int i = 0; i < 3; i++) {
            breaker.consume(bucket, "k");
        }
        assertThat(breaker.isOpen()).isTrue();
        assertThat(monitor.status().state()).isEqualTo(BackendState.DEGRADED);
        int calls = storeCalls.get();
        for (int i = 0; i < 100; i++) {
            Verdict verdict = breaker.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.UNAVAILABLE);
            assertThat(verdict.retryAfterSeconds()).isGreaterThanOrEqualTo(1);
        }
        breaker.reset(bucket, "k");
        assertThat(storeCalls.get()).isEqualTo(calls);
    }

    @Test
    @DisplayName("the background probe backs off while the store is down and closes after 3 successes in a row")
    void probeRecovers() {
        storeUp.set(false);
        for (int i = 0; i < 3; i++) {
            breaker.consume(bucket, "k");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> probes.get() >= 3);
        assertThat(breaker.isOpen()).as("failed probes keep it open").isTrue();

        storeUp.set(true);
        int before = probes.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> !breaker.isOpen());
        assertThat(probes.get() - before).isGreaterThanOrEqualTo(3);
        assertThat(monitor.status().state()).isEqualTo(BackendState.OK);
        assertThat(breaker.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("state changes reach listeners once each, with a sanitized last error")
    void changesReported() {
        java.util.List<BackendStatus> changes = new java.util.concurrent.CopyOnWriteArrayList<>();
        monitor.onChange(changes::add);
        monitor.failure(new java.net.ConnectException("Connection refused: redis://user:hunter2@10.1.2.3:6379"));
        storeUp.set(false);
        for (int i = 0; i < 6; i++) {
            breaker.consume(bucket, "k");
        }
        storeUp.set(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> changes.size() == 2);
        assertThat(changes.get(0).state()).isEqualTo(BackendState.DEGRADED);
        assertThat(changes.get(0).lastError()).hasValueSatisfying(error -> assertThat(error)
                .startsWith("ConnectException").doesNotContain("hunter2").doesNotContain("10.1.2.3"));
        assertThat(changes.get(1).state()).isEqualTo(BackendState.OK);
    }

    @Test
    @DisplayName("open, with the clock then stepped back an hour: the answer's wait stays within the longest back-off")
    void clockSteppedBackKeepsTheWaitTrue() {
        dev.ratelimiter.contract.ManualClock clock =
                new dev.ratelimiter.contract.ManualClock(java.time.Instant.parse("2026-01-01T00:00:00Z"));
        try (CircuitBreakerLimiter stepped = new CircuitBreakerLimiter(store, () -> {
            throw new java.io.IOException("connection refused");
        }, monitor, clock, new BreakerSettings(1, Duration.ofSeconds(5), Duration.ofSeconds(30), 1))) {
            storeUp.set(false);
            stepped.consume(bucket, "k");
            clock.advance(Duration.ofSeconds(-3600));

            assertThat(stepped.consume(bucket, "k").resetAfter()).isEqualTo(Duration.ofSeconds(30));
        }
    }

    @Test
    @DisplayName("a probe that throws an Error counts as a failed probe: the next one runs, and the breaker closes")
    void probeSurvivesAnError() {
        storeUp.set(false);
        for (int i = 0; i < 3; i++) {
            breaker.consume(bucket, "k");
        }
        probeErrors.set(2);
        storeUp.set(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> !breaker.isOpen());
        assertThat(probeErrors.get()).as("both Errors were thrown").isZero();
        assertThat(probes.get()).as("two Errors, then three successes").isGreaterThanOrEqualTo(5);
        assertThat(monitor.status().state()).isEqualTo(BackendState.OK);
    }
}
