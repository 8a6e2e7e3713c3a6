package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import dev.ratelimiter.testing.TestServers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The store's refusals answered from memory, through the chain the CDI layer builds around Valkey. */
class ValkeyDenyCacheTest {

    @Test
    @DisplayName("after Valkey's refusal, 1 000 more attempts within max-age make no store call; a reset here "
            + "clears it")
    void refusedKeyCostsTheStoreNothing() {
        Bucket login = Bucket.of("deny-cache", 2, Duration.ofSeconds(60), OutagePolicy.FAIL_CLOSED);
        String key = UUID.randomUUID().toString();
        // A minute: far longer than the loop below takes, so the test asserts the mechanism, not a speed.
        DenyCacheSettings refusals = new DenyCacheSettings(Duration.ofMinutes(1), 1_000);
        try (ValkeyChain chain = ValkeyChain.standalone(TestServers.valkeyUrl(), refusals)) {
            chain.limiter.consume(login, key);
            chain.limiter.consume(login, key);
            assertThat(chain.limiter.consume(login, key).outcome()).isEqualTo(Outcome.DENIED);
            long calls = chain.store.calls();

            for (int i = 0; i < 1_000; i++) {
                Verdict verdict = chain.limiter.consume(login, key);
                assertThat(verdict.outcome()).isEqualTo(Outcome.DENIED);
                assertThat(verdict.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(60));
            }

            assertThat(chain.store.calls()).as("store calls after the refusal").isEqualTo(calls);
            assertThat(chain.cachedDenials.of(login)).isEqualTo(1_000);
            chain.limiter.reset(login, key);
            assertThat(chain.limiter.consume(login, key).outcome()).isEqualTo(Outcome.ALLOWED);
        }
    }
}
