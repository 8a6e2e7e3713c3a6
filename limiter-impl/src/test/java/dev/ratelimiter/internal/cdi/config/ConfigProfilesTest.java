package dev.ratelimiter.internal.cdi.config;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.testing.LogCapture;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MicroProfile Config profiles through SmallRye Config (Quarkus, Open Liberty): a bucket defined only under the
 * active profile exists, one defined only under another profile does not, and a known property under a profile
 * draws no typo warning (docs/guide.md#configuration-profiles).
 */
class ConfigProfilesTest {

    private static final Map<String, String> GLOBAL_BUCKETS = Map.of(
            "ratelimiter.buckets.api-authenticated.limit", "600",
            "ratelimiter.buckets.api-authenticated.window", "PT1M",
            "ratelimiter.buckets.api-anonymous.limit", "120",
            "ratelimiter.buckets.api-anonymous.window", "PT1M");

    private LogCapture log;

    @BeforeEach
    void listen() {
        log = LogCapture.of(LimiterConfiguration.class);
    }

    @AfterEach
    void stopListening() {
        log.close();
    }

    private static LimiterConfiguration read(Map<String, String> properties, Map<String, String> environment) {
        Map<String, String> all = new HashMap<>(GLOBAL_BUCKETS);
        all.putAll(properties);
        LimiterConfiguration configuration = new LimiterConfiguration();
        // The default interceptors apply the profiles, as on a server.
        configuration.config = new SmallRyeConfigBuilder().addDefaultInterceptors().withSources(
                new PropertiesConfigSource(all, "microprofile-config.properties", 100),
                new EnvConfigSource(environment, 300)).build();
        configuration.read();
        return configuration;
    }

    private static Map<String, String> profiledBuckets(String activeProfile) {
        Map<String, String> properties = new HashMap<>();
        properties.put("mp.config.profile", activeProfile);
        properties.put("%dev.ratelimiter.buckets.debug.limit", "7");
        properties.put("%dev.ratelimiter.buckets.debug.window", "PT1M");
        properties.put("%prod.ratelimiter.buckets.audit.limit", "9");
        properties.put("%prod.ratelimiter.buckets.audit.window", "PT1H");
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT15M");
        properties.put("%dev.ratelimiter.buckets.login.limit", "500");
        return properties;
    }

    @Test
    @DisplayName("mp.config.profile=dev: the %dev. bucket exists and %dev. overrides a value; the %prod. bucket does not exist")
    void devProfile() {
        LimiterConfiguration configuration = read(profiledBuckets("dev"), Map.of());

        assertThat(configuration.settings().buckets())
                .containsOnlyKeys("api-anonymous", "api-authenticated", "debug", "login");
        assertThat(configuration.settings().bucket("debug")).contains(Bucket.of("debug", 7, Duration.ofMinutes(1)));
        assertThat(configuration.settings().bucket("login"))
                .contains(Bucket.of("login", 500, Duration.ofMinutes(15)));
        assertThat(log.records(Level.ALL)).as("no typo warning for known names under a profile").isEmpty();
    }

    @Test
    @DisplayName("mp.config.profile=prod: the %prod. bucket exists; the %dev. bucket and value do not apply")
    void prodProfile() {
        LimiterConfiguration configuration = read(profiledBuckets("prod"), Map.of());

        assertThat(configuration.settings().buckets())
                .containsOnlyKeys("api-anonymous", "api-authenticated", "audit", "login");
        assertThat(configuration.settings().bucket("audit")).contains(Bucket.of("audit", 9, Duration.ofHours(1)));
        assertThat(configuration.settings().bucket("login")).contains(Bucket.of("login", 5, Duration.ofMinutes(15)));
    }

    @Test
    @DisplayName("no profile active: neither profile's bucket exists")
    void noProfile() {
        Map<String, String> properties = profiledBuckets("dev");
        properties.remove("mp.config.profile");

        assertThat(read(properties, Map.of()).settings().buckets())
                .containsOnlyKeys("api-anonymous", "api-authenticated", "login");
    }

    @Test
    @DisplayName("environment variables under a profile: _DEV_RATELIMITER_BUCKETS_<NAME>_LIMIT counts only with dev active")
    void environmentUnderProfile() {
        Map<String, String> environment = Map.of(
                "_DEV_RATELIMITER_BUCKETS_FROM_ENV_LIMIT", "8",
                "_DEV_RATELIMITER_BUCKETS_FROM_ENV_WINDOW", "PT2M",
                "_PROD_RATELIMITER_BUCKETS_EXPORT_LIMIT", "9",
                "_PROD_RATELIMITER_BUCKETS_EXPORT_WINDOW", "PT1M");

        LimiterConfiguration configuration = read(Map.of("mp.config.profile", "dev"), environment);

        assertThat(configuration.settings().buckets())
                .containsOnlyKeys("api-anonymous", "api-authenticated", "from-env");
        assertThat(configuration.settings().bucket("from-env"))
                .contains(Bucket.of("from-env", 8, Duration.ofMinutes(2)));
    }

    @Test
    @DisplayName("a bucket whose name has a dash, from environment variables alone: the name SmallRye Config lists "
            + "beside the variable (ratelimiter.buckets.password.reset.limit) is not taken for a bucket")
    void environmentBucketWithDash() {
        Map<String, String> environment = Map.of(
                "RATELIMITER_BUCKETS_PASSWORD_RESET_LIMIT", "3",
                "RATELIMITER_BUCKETS_PASSWORD_RESET_WINDOW", "PT1H");

        LimiterConfiguration configuration = read(Map.of(), environment);

        assertThat(configuration.settings().buckets())
                .containsOnlyKeys("api-anonymous", "api-authenticated", "password-reset");
        assertThat(log.records(Level.ALL)).isEmpty();
    }

    @Test
    @DisplayName("a typo under a profile is warned with its profile, whether that profile is active or not")
    void typoUnderProfile() {
        Map<String, String> properties = profiledBuckets("dev");
        properties.put("%dev.ratelimiter.buckets.debug.limt", "7");
        properties.put("%prod.ratelimiter.backnd", "valkey");

        read(properties, Map.of());

        assertThat(log.records(Level.ALL)).extracting(java.util.logging.LogRecord::getMessage)
                .containsExactlyInAnyOrder(
                        "Unknown property %dev.ratelimiter.buckets.debug.limt is ignored; "
                                + "did you mean %dev.ratelimiter.buckets.debug.limit?",
                        "Unknown property %prod.ratelimiter.backnd is ignored; "
                                + "did you mean %prod.ratelimiter.backend?");
    }
}
