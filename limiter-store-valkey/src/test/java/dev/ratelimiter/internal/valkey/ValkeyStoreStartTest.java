package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.PlainStoreContext;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.StoreProviderRegistry;
import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import dev.ratelimiter.internal.valkey.ValkeySettings.Mode;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.RateLimitStoreProvider;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client is built at startup, not at the first decision: a value it cannot use fails the deployment with
 * the property named, whether or not a server is up; a server that is down does not.
 */
class ValkeyStoreStartTest {

    private static ValkeySettings settings(Mode mode, String url, Optional<String> trustStore,
                                           Optional<String> trustStorePassword) {
        return new ValkeySettings(mode, url, mode == Mode.STANDALONE ? List.of() : List.of("127.0.0.1:1"),
                mode == Mode.SENTINEL ? Optional.of("rl") : Optional.empty(), Optional.empty(), Optional.empty(),
                Duration.ofMillis(100), "rl-test:", 4, trustStore, trustStorePassword);
    }

    private static ValkeyStore start(ValkeySettings settings) {
        return ValkeyStore.start(settings);
    }

    @ParameterizedTest(name = "{0}")
    // Sentinel and cluster mode read only the URL's scheme, user, password and database, but check it the same.
    @ValueSource(strings = {"redis://:s3cret@127.0.0.1:notaport", "redis://:s3cret@/", "redis://127.0.0.1:6379/zero",
        "redis://127.0.0.1:6379/0/1", "redis://127.0.0.1:99999", "redis://127.0.0.1:0", "redis://exa mple:6379",
        "http://127.0.0.1:6379"})
    @DisplayName("a malformed ratelimiter.valkey.url fails the start naming the property, never repeating the URL")
    void malformedUrl(String url) {
        assertThatThrownBy(() -> start(settings(Mode.STANDALONE, url, Optional.empty(), Optional.empty())))
                .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problems())
                        .singleElement().asString().startsWith("ratelimiter.valkey.url: ")
                        .doesNotContain("s3cret").doesNotContain(url));
    }

    @Test
    @DisplayName("a server that is down at startup: the start succeeds and the decision is UNAVAILABLE, not thrown")
    void serverDownAtStart() throws Exception {
        int closedPort = RedisServer.freePort();
        try (ValkeyStore store = start(settings(Mode.STANDALONE, "redis://127.0.0.1:" + closedPort,
                Optional.empty(), Optional.empty()))) {
            StoreLimiter limiter = new StoreLimiter(store, new BackendMonitor("valkey", InstantSource.system(),
                    RateLimiterMetrics.NONE), RateLimiterMetrics.NONE);
            assertThat(limiter.consume(Bucket.of("down", 5, Duration.ofSeconds(60)), "k").outcome())
                    .isEqualTo(Outcome.UNAVAILABLE);
        }
    }

    @Test
    @DisplayName("a server that is down: the store throws a TRANSIENT StoreException whose cause is the client's, blocks, and has no parts outside a cluster")
    void serverDownIsTransient() throws Exception {
        int closedPort = RedisServer.freePort();
        try (ValkeyStore store = start(settings(Mode.STANDALONE, "redis://127.0.0.1:" + closedPort,
                Optional.empty(), Optional.empty()))) {
            Bucket bucket = Bucket.of("down", 5, Duration.ofSeconds(60));
            assertThatThrownBy(() -> store.consume(List.of(new StoreItem(bucket, "k", 1))))
                    .isInstanceOfSatisfying(StoreException.class, e -> {
                        assertThat(e.kind()).isEqualTo(FailureKind.TRANSIENT);
                        assertThat(e.getCause()).isInstanceOf(redis.clients.jedis.exceptions.JedisException.class);
                    });
            assertThatThrownBy(store::probe).isInstanceOf(StoreException.class);
            assertThatThrownBy(() -> store.reset(bucket, "k")).isInstanceOf(StoreException.class);
            assertThat(store.blocking()).isTrue();
            assertThat(store.parts()).isEmpty();
        }
    }

    @Test
    @DisplayName("ratelimiter.backend=valkey finds the provider by ServiceLoader; its problems fail the start, each named")
    void providerFoundByName() {
        RateLimitStoreProvider provider = StoreProviderRegistry.load().byName().get("valkey");
        assertThat(provider).isInstanceOf(ValkeyStoreProvider.class);
        Map<String, String> properties = Map.of("ratelimiter.valkey.mode", "cluster",
                "ratelimiter.valkey.pool-size", "0");
        try (PlainStoreContext context = new PlainStoreContext(new SubtreeConfig("valkey",
                name -> Optional.ofNullable(properties.get(name))), InstantSource.system(), Optional.empty())) {
            assertThatThrownBy(() -> provider.create(context))
                    .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problems())
                            .anySatisfy(p -> assertThat(p).startsWith("ratelimiter.valkey.nodes: "))
                            .anySatisfy(p -> assertThat(p).startsWith("ratelimiter.valkey.pool-size: ")));
        }
    }

    @Test
    @DisplayName("the provider builds a standalone store with no server up; its URL problem names the property")
    void providerBuildsStandalone() throws Exception {
        int closedPort = RedisServer.freePort();
        try (PlainStoreContext context = new PlainStoreContext(new SubtreeConfig("valkey",
                name -> Optional.ofNullable(Map.of("ratelimiter.valkey.url", "redis://127.0.0.1:" + closedPort)
                        .get(name))), InstantSource.system(), Optional.empty())) {
            new ValkeyStoreProvider().create(context).close();
        }
        try (PlainStoreContext context = new PlainStoreContext(new SubtreeConfig("valkey",
                name -> Optional.ofNullable(Map.of("ratelimiter.valkey.url", "redis://127.0.0.1:notaport")
                        .get(name))), InstantSource.system(), Optional.empty())) {
            assertThatThrownBy(() -> new ValkeyStoreProvider().create(context))
                    .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problems())
                            .singleElement().asString().startsWith("ratelimiter.valkey.url: "));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("a trust store its password does not open fails the start naming ratelimiter.valkey.trust-store-password, with no server up, in every mode")
    void wrongTrustStorePassword(Mode mode) throws Exception {
        Path trustStore = trustStore("right-password");

        assertThatThrownBy(() -> start(settings(mode, "rediss://127.0.0.1:6380", Optional.of(trustStore.toString()),
                Optional.of("wrong-password"))))
                .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problems())
                        .singleElement().asString().startsWith("ratelimiter.valkey.trust-store-password: ")
                        .doesNotContain("wrong-password"));
    }

    @Test
    @DisplayName("a file that is no trust store fails the start naming ratelimiter.valkey.trust-store")
    void notATrustStore() throws Exception {
        Path notAStore = Files.createTempFile("ratelimiter-not-a-store-", ".p12");
        Files.writeString(notAStore, "not a key store");

        assertThatThrownBy(() -> start(settings(Mode.STANDALONE, "rediss://127.0.0.1:6380",
                Optional.of(notAStore.toString()), Optional.of("changeit"))))
                .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problems())
                        .singleElement().asString().startsWith("ratelimiter.valkey.trust-store: "));
    }

    @Test
    @DisplayName("the right trust-store password: the start succeeds with no server up")
    void rightTrustStorePassword() throws Exception {
        Path trustStore = trustStore("right-password");
        start(settings(Mode.STANDALONE, "rediss://127.0.0.1:6380", Optional.of(trustStore.toString()),
                Optional.of("right-password"))).close();
    }

    private static Path trustStore(String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        Path file = Files.createTempFile("ratelimiter-trust-", ".p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
        return file;
    }
}
