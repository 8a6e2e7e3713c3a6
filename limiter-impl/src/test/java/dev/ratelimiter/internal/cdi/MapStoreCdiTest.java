package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.key.CounterKeyHasher;
import dev.ratelimiter.internal.core.key.KeyHasher;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SPI's proof, part three: with {@code ratelimiter.backend=test-map} the library deploys on a store defined
 * only in test sources, found by its provider's name, and decides through it; and the injectable
 * {@link RateLimiter} bean takes the decider's path (hashing, the denial event), as the facade does.
 */
class MapStoreCdiTest {

    private CdiContainer cdi;

    @BeforeEach
    void start() {
        cdi = CdiContainer.start(Map.of(
                "ratelimiter.backend", MapStoreProvider.NAME,
                "ratelimiter.key-secret", "a-test-secret",
                "ratelimiter.buckets.login.limit", "2",
                "ratelimiter.buckets.login.window", "PT1M"), CreatedStores.class, DenialRecorder.class);
    }

    @AfterEach
    void stop() {
        cdi.close();
    }

    private MapStore store() {
        assertThat(cdi.select(CreatedStores.class).stores()).as("one store built, at startup").hasSize(1);
        return cdi.select(CreatedStores.class).stores().get(0);
    }

    @Test
    @DisplayName("the store is built by its provider at startup and named in the status; it says it does not block")
    void deploysOnTheStore() {
        store();
        assertThat(cdi.select(LimiterRuntime.class).status().backend()).isEqualTo(MapStoreProvider.NAME);
        assertThat(cdi.select(RateLimitDecider.class).blocking()).isFalse();
    }

    @Test
    @DisplayName("the injected RateLimiter bean: a raw login reaches the store hashed, the denial fires the event "
            + "with that hash")
    void injectedBeanTakesTheDecidersPath() {
        RateLimiter limiter = cdi.select(RateLimiter.class);
        Bucket login = cdi.select(RateLimits.class).bucket("login");

        assertThat(limiter.consume(login, "alice@example.com").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(login, "alice@example.com").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limiter.consume(login, "alice@example.com").outcome()).isEqualTo(Outcome.DENIED);

        String hashed = CounterKeyHasher.shared(new KeyHasher(Optional.of("a-test-secret")))
                .counterKey(KeyNamespace.APPLICATION, "alice@example.com");
        assertThat(hashed).as("the HMAC of the application namespace's prefix and the key")
                .isEqualTo(new KeyHasher(Optional.of("a-test-secret")).hash("a:alice@example.com"));
        assertThat(store().keys(login)).containsExactly(hashed);
        assertThat(cdi.select(DenialRecorder.class).denials()).singleElement().satisfies(denied -> {
            assertThat(denied.bucket()).isEqualTo(login);
            assertThat(denied.hashedKey()).isEqualTo(hashed);
        });

        limiter.reset(login, "alice@example.com");

        assertThat(store().keys(login)).isEmpty();
        assertThat(limiter.consume(login, "alice@example.com").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("the RateLimits facade decides through the same store")
    void facadeDecidesThroughTheStore() {
        RateLimits limits = cdi.select(RateLimits.class);

        limits.consume("login", "bob");

        assertThat(store().keys(limits.bucket("login"))).hasSize(1).noneMatch(key -> key.contains("bob"));
    }

    @Test
    @DisplayName("a token bucket on a store that decides fixed windows only fails the start, naming the bucket's "
            + "algorithm property and the store")
    void algorithmTheStoreDoesNotDecide() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CdiContainer.start(Map.of(
                        "ratelimiter.backend", MapStoreProvider.NAME,
                        "ratelimiter.key-secret", "a-test-secret",
                        "ratelimiter.buckets.reports.limit", "2",
                        "ratelimiter.buckets.reports.window", "PT1M",
                        "ratelimiter.buckets.reports.algorithm", "token-bucket"), CreatedStores.class).close())
                .isInstanceOf(dev.ratelimiter.spi.ConfigurationException.class)
                .hasMessageContaining("ratelimiter.buckets.reports.algorithm: bucket 'reports' is a token-bucket, "
                        + "which the store of ratelimiter.backend=" + MapStoreProvider.NAME + " does not decide (it "
                        + "decides [fixed-window])");
    }

    @Test
    @DisplayName("a concurrency bucket on a store that keeps no permits fails the start, naming its concurrency "
            + "property, the store and what to do")
    void concurrencyTheStoreDoesNotKeep() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CdiContainer.start(Map.of(
                        "ratelimiter.backend", MapStoreProvider.NAME,
                        "ratelimiter.key-secret", "a-test-secret",
                        "ratelimiter.buckets.exports.concurrency", "2"), CreatedStores.class).close())
                .isInstanceOf(dev.ratelimiter.spi.ConfigurationException.class)
                .hasMessageContaining("ratelimiter.buckets.exports.concurrency: bucket 'exports' limits concurrency, "
                        + "which the store of ratelimiter.backend=" + MapStoreProvider.NAME + " does not keep (its "
                        + "RateLimitStoreProvider.algorithms() lacks CONCURRENCY); remove the property, or use "
                        + "memory, valkey or postgres");
    }
}
