package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.CarriedCounts;
import dev.ratelimiter.contract.SteadyLoad;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.testing.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * PostgreSQL outages made by a TCP proxy between the library's own pool and the server: the network cut (every
 * connection reset, new ones refused) and stalled (nothing answers). The chain is the one the CDI layer builds, with
 * the library's 100 ms deadline and the default breaker. Asserts the mechanisms (no exception, the breaker keeps
 * calls away, fallbacks counted, the probe recovers without rebuilding anything) and only generous bounds on time.
 */
class PostgresOutageTest {

    private static final Duration GENEROUS = Duration.ofMillis(1_500); // 15 x the 100 ms deadline
    private static final Duration RECOVERY = Duration.ofSeconds(60);

    private static String schema;

    private TcpProxy proxy;
    private PostgresChain chain;
    private SteadyLoad load;

    @BeforeAll
    static void migrate() {
        schema = PostgresTarget.newSchema("outage");
    }

    @AfterAll
    static void drop() {
        PostgresTarget.dropSchema(schema);
    }

    @BeforeEach
    void start() {
        proxy = TcpProxy.start(PostgresChain.targetHost(), PostgresChain.targetPort());
        chain = new PostgresChain(PostgresChain.settings(
                PostgresChain.url(schema, "rl-outage-test", Optional.of(proxy.port())), 16));
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (load != null) {
            load.close();
        }
        if (chain != null) {
            chain.close();
        }
        proxy.close();
    }

    @Test
    @DisplayName("network cut: the fallback goes on from PostgreSQL's counts, so a key refused before stays refused "
            + "and one with 2 of 5 left gets at most 2")
    void fallbackGoesOnFromTheStore() {
        CarriedCounts counts = new CarriedCounts(chain.limiter, "postgres");
        proxy.cut();
        counts.assertCarried();
        assertThat(chain.outages.fallbacks(CarriedCounts.BUCKET.name())).as("answered by the fallback").isPositive();
    }

    @Test
    @DisplayName("network cut: every call returns within 1.5 s without exception, the breaker opens and the store is not called, fallbacks are counted, degraded; network back: the probe brings it back to ok and decisions are PostgreSQL's again")
    void cut() throws SQLException {
        Bucket bucket = Bucket.of("cut", 100_000, Duration.ofSeconds(300)); // beyond what the fallback will see
        for (int i = 1; i <= 5; i++) {
            assertThat(chain.limiter.consume(bucket, "k").remaining()).isEqualTo(100_000 - i);
        }
        assertThat(PostgresChain.storedCount(schema, "cut", "k")).isEqualTo(5);

        proxy.cut();
        breakerOpensWithinDeadlines(bucket, Outcome.ALLOWED);
        assertThat(chain.monitor.status().state()).isEqualTo(BackendState.DEGRADED);
        assertThat(chain.monitor.status().lastError()).hasValueSatisfying(error ->
                assertThat(error).doesNotContain("127.0.0.1").doesNotContain(String.valueOf(proxy.port())));
        storeNotCalledWhileOpen(bucket, Outcome.ALLOWED);
        assertThat(chain.outages.fallbacks("cut")).as("fallbacks").isGreaterThanOrEqualTo(1_000);
        assertThat(PostgresChain.storedCount(schema, "cut", "k")).as("nothing reached the table").isEqualTo(5);

        proxy.pass();
        await().atMost(RECOVERY).until(() -> !chain.degraded());
        assertThat(chain.breaker.isOpen()).isFalse();
        long reached = chain.store.calls();
        Verdict verdict = chain.limiter.consume(bucket, "k");
        assertThat(chain.store.calls()).as("calls reaching PostgreSQL again").isEqualTo(reached + 1);
        assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(verdict.remaining()).as("the count kept in PostgreSQL, not the fallback's").isEqualTo(100_000 - 6);
        assertThat(PostgresChain.storedCount(schema, "cut", "k")).isEqualTo(6);
    }

    @Test
    @DisplayName("network stalled: every call returns within 1.5 s without exception, the breaker opens and the store is not called, fail-closed refusals are counted, degraded; network back: ok again without rebuilding anything")
    void stalled() throws SQLException {
        Bucket bucket = Bucket.of("stall", 1_000, Duration.ofSeconds(300), OutagePolicy.FAIL_CLOSED);
        for (int i = 1; i <= 5; i++) {
            assertThat(chain.limiter.consume(bucket, "k").remaining()).isEqualTo(1_000 - i);
        }

        proxy.stall();
        breakerOpensWithinDeadlines(bucket, Outcome.UNAVAILABLE);
        assertThat(chain.monitor.status().state()).isEqualTo(BackendState.DEGRADED);
        storeNotCalledWhileOpen(bucket, Outcome.UNAVAILABLE);
        assertThat(chain.outages.failCloseds("stall")).as("fail-closed refusals").isGreaterThanOrEqualTo(1_003);
        assertThat(chain.outages.fallbacks("stall")).isZero();

        proxy.pass();
        await().atMost(RECOVERY).until(() -> !chain.degraded());
        long reached = chain.store.calls();
        Verdict verdict = chain.limiter.consume(bucket, "k");
        assertThat(chain.store.calls()).as("calls reaching PostgreSQL again").isEqualTo(reached + 1);
        assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
        // The statements that timed out during the stall may have counted too: the proxy held their bytes and
        // delivered them when the network came back, and PostgreSQL ran them (a statement is never resent).
        long stored = PostgresChain.storedCount(schema, "stall", "k");
        assertThat(stored).as("the count kept in PostgreSQL").isBetween(6L, 9L);
        assertThat(verdict.remaining()).isBetween(1_000L - 9, 1_000L - 6);
    }

    @Test
    @DisplayName("network cut under load from 8 threads: no exception, every call bounded, fallbacks and fail-opens counted, degraded; back: ok and shared counting again")
    void cutUnderLoad() throws Exception {
        Bucket fallback = Bucket.of("load-fallback", Bucket.MAX_LIMIT, Duration.ofSeconds(300));
        Bucket failOpen = Bucket.of("load-open", Bucket.MAX_LIMIT, Duration.ofSeconds(300), OutagePolicy.FAIL_OPEN);
        load = SteadyLoad.start(chain.limiter, fallback, failOpen);
        await().atMost(Duration.ofSeconds(20)).until(() -> chain.store.calls() > 500);

        proxy.cut();
        await().atMost(Duration.ofSeconds(20)).until(chain::degraded);
        await().atMost(Duration.ofSeconds(20)).until(() -> chain.outages.fallbacks("load-fallback") > 100
                && chain.outages.failOpens("load-open") > 100);

        proxy.pass();
        await().atMost(RECOVERY).until(() -> !chain.degraded());
        long storeCallsAfterRecovery = chain.store.calls();
        await().atMost(Duration.ofSeconds(20)).until(() -> chain.store.calls() > storeCallsAfterRecovery + 100);
        assertThat(load.stop()).as("slowest call").isLessThan(GENEROUS);
        assertThat(PostgresChain.storedCount(schema, "load-fallback", "client-0")).as("counting in PostgreSQL again")
                .isPositive();
    }

    /** Calls until the breaker opens (three failures in a row); each bounded and answered by the policy. */
    private void breakerOpensWithinDeadlines(Bucket bucket, Outcome expected) {
        for (int i = 0; i < 10 && !chain.breaker.isOpen(); i++) {
            long start = System.nanoTime();
            Verdict verdict = chain.limiter.consume(bucket, "k");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("call %d", i).isLessThan(GENEROUS);
            assertThat(verdict.outcome()).isEqualTo(expected);
        }
        assertThat(chain.breaker.isOpen()).as("breaker open").isTrue();
        assertThat(chain.store.calls()).as("calls that reached the store").isEqualTo(5 + 3);
    }

    private void storeNotCalledWhileOpen(Bucket bucket, Outcome expected) {
        long reachedStore = chain.store.calls();
        for (int i = 0; i < 1_000; i++) {
            long start = System.nanoTime();
            Verdict verdict = chain.limiter.consume(bucket, "k");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
            assertThat(verdict.outcome()).isEqualTo(expected);
            if (expected == Outcome.UNAVAILABLE) {
                assertThat(verdict.retryAfterSeconds()).as("Retry-After: the remaining back-off").isBetween(1L, 30L);
            }
        }
        assertThat(chain.store.calls()).as("calls that reached the store while open").isEqualTo(reachedStore);
    }
}
