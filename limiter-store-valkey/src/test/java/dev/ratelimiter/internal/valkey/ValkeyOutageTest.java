package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.contract.CarriedCounts;
import dev.ratelimiter.contract.SteadyLoad;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Valkey outages on a server of the test's own: killed, paused, scripts flushed, an expiry lost. Asserts the
 * mechanisms (no exception, breaker keeps calls away, probe recovers) and only generous bounds on time.
 */
class ValkeyOutageTest {

    private static final Duration GENEROUS = Duration.ofSeconds(1); // 10 x the 100 ms deadline

    private RedisServer server;
    private ValkeyChain chain;
    private JedisPooled direct;

    @BeforeEach
    void start() {
        server = RedisServer.start();
        chain = ValkeyChain.standalone(server.url());
        direct = new JedisPooled("127.0.0.1", server.port());
    }

    @AfterEach
    void stop() {
        direct.close();
        chain.close();
        server.close();
    }

    @Test
    @DisplayName("killed under concurrent load: no exception, calls bounded, fallbacks counted, degraded; restarted: the probe brings it back to ok and shared counting")
    void killedUnderLoad() throws Exception {
        // Limits no loop can reach: the in-memory fallback answers millions of attempts a second.
        Bucket fallback = Bucket.of("kill-fallback", Bucket.MAX_LIMIT, Duration.ofSeconds(60));
        Bucket failOpen = Bucket.of("kill-open", Bucket.MAX_LIMIT, Duration.ofSeconds(60), OutagePolicy.FAIL_OPEN);
        try (SteadyLoad load = SteadyLoad.start(chain.limiter, fallback, failOpen)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> chain.store.calls() > 500);

            server.kill();
            await().atMost(Duration.ofSeconds(10)).until(chain::degraded);
            await().atMost(Duration.ofSeconds(10)).until(() -> chain.outages.fallbacks("kill-fallback") > 100
                    && chain.outages.failOpens("kill-open") > 100);
            assertThat(chain.monitor.status().lastError()).hasValueSatisfying(error ->
                    assertThat(error).doesNotContain("127.0.0.1").doesNotContain(String.valueOf(server.port())));

            server.restart();
            await().atMost(Duration.ofSeconds(30)).until(() -> !chain.degraded());
            long storeCallsAfterRecovery = chain.store.calls();
            await().atMost(Duration.ofSeconds(60)).until(() -> chain.store.calls() > storeCallsAfterRecovery + 100);
            assertThat(load.stop()).as("slowest call").isLessThan(GENEROUS);
        }
        assertThat(direct.get("rl-test:{kill-fallback:client-0}")).as("counting in Valkey again").isNotNull();
    }

    @Test
    @DisplayName("killed: the fallback goes on from Valkey's counts, so a key refused before stays refused and one "
            + "with 2 of 5 left gets at most 2")
    void fallbackGoesOnFromTheStore() {
        CarriedCounts counts = new CarriedCounts(chain.limiter, "valkey");
        server.kill();
        counts.assertCarried();
        assertThat(chain.outages.fallbacks(CarriedCounts.BUCKET.name())).as("answered by the fallback").isPositive();
    }

    @Test
    @DisplayName("paused with SIGSTOP: calls bounded by the deadline, then the breaker opens and the store is not called; SIGCONT: recovery")
    void pausedThenResumed() {
        Bucket bucket = Bucket.of("pause", 100, Duration.ofSeconds(60), OutagePolicy.FAIL_CLOSED);
        assertThat(chain.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);

        server.pause();
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            Verdict verdict = chain.limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.UNAVAILABLE);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
        }
        assertThat(chain.breaker.isOpen()).isTrue();
        assertThat(chain.degraded()).isTrue();
        long reachedStore = chain.store.calls();
        for (int i = 0; i < 1_000; i++) {
            Verdict verdict = chain.limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.UNAVAILABLE);
            assertThat(verdict.retryAfterSeconds()).isBetween(1L, 30L);
        }
        assertThat(chain.store.calls()).as("calls that reached the store while open").isEqualTo(reachedStore);

        server.resume();
        await().atMost(Duration.ofSeconds(30)).until(() -> !chain.degraded());
        // The count survived in Valkey. The three attempts that timed out may have counted too: their commands
        // were sent and run once the server went on, which is why a timed-out script is never sent again.
        assertThat(chain.limiter.consume(bucket, "k").remaining()).as("the count kept in Valkey").isBetween(95L, 98L);
    }

    @Test
    @DisplayName("SCRIPT FLUSH between two calls: the second call succeeds and no fallback is counted")
    void scriptFlushed() {
        Bucket bucket = Bucket.of("flush", 10, Duration.ofSeconds(60));
        assertThat(chain.limiter.consume(bucket, "k").remaining()).isEqualTo(9);
        direct.scriptFlush();
        Verdict second = chain.limiter.consume(bucket, "k");
        assertThat(second.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(second.remaining()).isEqualTo(8);
        assertThat(chain.outages.fallbacks("flush")).isZero();
        assertThat(chain.monitor.errors()).isZero();
    }

    @Test
    @DisplayName("a counter at 700 without expiry is repaired: denied with Retry-After within the window, allowed again when that window ends")
    void lostExpiryRepaired() {
        Bucket bucket = Bucket.of("repair", 5, Duration.ofSeconds(2));
        String key = "rl-test:{repair:k}";
        direct.set(key, "700");
        assertThat(direct.pttl(key)).isEqualTo(-1);

        Verdict denied = chain.limiter.consume(bucket, "k");

        assertThat(denied.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(denied.retryAfterSeconds()).isBetween(1L, 2L);
        assertThat(direct.pttl(key)).isBetween(1L, 2_000L);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
            Verdict verdict = chain.limiter.consume(bucket, "k");
            assertThat(verdict.retryAfterSeconds()).isBetween(1L, 2L);
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
        });
    }
}
