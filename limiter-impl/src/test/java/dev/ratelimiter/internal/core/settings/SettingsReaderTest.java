package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.testing.RangeChecks;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SettingsReaderTest {

    private final Map<String, String> properties = new HashMap<>(Map.of(
            "ratelimiter.buckets.api-authenticated.limit", "600",
            "ratelimiter.buckets.api-authenticated.window", "PT1M",
            "ratelimiter.buckets.api-anonymous.limit", "120",
            "ratelimiter.buckets.api-anonymous.window", "PT1M"));

    private LimiterSettings read() {
        return SettingsReader.read(name -> Optional.ofNullable(properties.get(name)), properties.keySet());
    }

    private void assertProblem(String... fragments) {
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains(fragments));
    }

    @Test
    @DisplayName("property names are walked once: SmallRye Config 3.16's Iterable throws on a second iterator()")
    void namesIterableOnce() {
        AtomicBoolean walked = new AtomicBoolean();
        Iterable<String> once = () -> {
            if (walked.getAndSet(true)) {
                throw new NoSuchElementException();
            }
            return properties.keySet().iterator();
        };
        LimiterSettings settings = SettingsReader.read(name -> Optional.ofNullable(properties.get(name)), once);
        assertThat(settings.buckets()).containsOnlyKeys("api-anonymous", "api-authenticated");
    }

    /**
     * Reads as a Config with the profile {@code dev} active does, when it lists every name as written (Payara's
     * does): a name is looked up under {@code %dev.} first (or {@code _DEV_} in environment form), then as is.
     */
    private LimiterSettings readWithDevProfile() {
        return SettingsReader.read(name -> Optional.ofNullable(properties.get("%dev." + name))
                .or(() -> Optional.ofNullable(properties.get(
                        "_DEV_" + name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(java.util.Locale.ROOT))))
                .or(() -> Optional.ofNullable(properties.get(name))), properties.keySet());
    }

    @Test
    @DisplayName("a bucket only under the active profile exists; one only under another profile does not")
    void bucketsUnderProfiles() {
        properties.put("%dev.ratelimiter.buckets.debug.limit", "7");
        properties.put("%dev.ratelimiter.buckets.debug.window", "PT1M");
        properties.put("_DEV_RATELIMITER_BUCKETS_FROM_ENV_LIMIT", "8");
        properties.put("_DEV_RATELIMITER_BUCKETS_FROM_ENV_WINDOW", "PT2M");
        properties.put("%prod.ratelimiter.buckets.audit.limit", "9");
        properties.put("%prod.ratelimiter.buckets.audit.window", "PT1M");
        properties.put("_PROD_RATELIMITER_BUCKETS_EXPORT_LIMIT", "9");
        properties.put("_PROD_RATELIMITER_BUCKETS_EXPORT_WINDOW", "PT1M");

        LimiterSettings settings = readWithDevProfile();

        assertThat(settings.buckets()).containsOnlyKeys("api-anonymous", "api-authenticated", "debug", "from-env");
        assertThat(settings.bucket("debug")).contains(Bucket.of("debug", 7, Duration.ofMinutes(1)));
        assertThat(settings.bucket("from-env")).contains(Bucket.of("from-env", 8, Duration.ofMinutes(2)));
    }

    @Test
    @DisplayName("a bucket's property under the active profile overrides its plain value; another profile's does not")
    void bucketValueUnderProfile() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT15M");
        properties.put("%dev.ratelimiter.buckets.login.limit", "500");
        properties.put("%prod.ratelimiter.buckets.login.window", "PT1H");
        assertThat(readWithDevProfile().bucket("login")).contains(Bucket.of("login", 500, Duration.ofMinutes(15)));
    }

    @Test
    @DisplayName("a bucket under the active profile without its window is refused, naming the property")
    void incompleteBucketUnderProfile() {
        properties.put("%dev.ratelimiter.buckets.debug.limit", "7");
        properties.put("%prod.ratelimiter.buckets.debug.window", "PT1M");
        assertThatThrownBy(this::readWithDevProfile).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.buckets.debug.window: bucket 'debug' is configured without it");
    }

    @Test
    @DisplayName("defaults: enabled, memory, /api/, no trusted proxies, /64, headers on success, 100000 keys")
    void defaults() {
        LimiterSettings settings = read();
        assertThat(settings.enabled()).isTrue();
        assertThat(settings.backend()).isEqualTo("memory");
        assertThat(settings.pathPrefixes()).containsExactly("/api/");
        assertThat(settings.trustedProxies().entries()).isEmpty();
        assertThat(settings.ipv6PrefixLength()).isEqualTo(64);
        assertThat(settings.keySecret()).isEmpty();
        assertThat(settings.headersOnSuccess()).isTrue();
        assertThat(settings.headerFields()).containsExactly(HeaderFields.DRAFT_10);
        assertThat(settings.memoryMaxKeys()).isEqualTo(100_000);
        assertThat(settings.healthDownWhenDegraded()).isFalse();
        assertThat(settings.shadowBuckets()).isEmpty();
        assertThat(settings.metricsSystem()).isEqualTo(MetricsSystem.AUTO);
        assertThat(settings.bucket("api-anonymous")).contains(Bucket.of("api-anonymous", 120, Duration.ofMinutes(1)));
    }

    @Test
    @DisplayName("a bucket is read from its three properties; both outage spellings are accepted")
    void bucketFromProperties() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT15M");
        properties.put("ratelimiter.buckets.login.on-outage", "fail-closed");
        properties.put("ratelimiter.buckets.search.limit", "10");
        properties.put("ratelimiter.buckets.search.window", "PT1S");
        properties.put("ratelimiter.buckets.search.on-outage", "FAIL_OPEN");
        LimiterSettings settings = read();
        assertThat(settings.bucket("login"))
                .contains(Bucket.of("login", 5, Duration.ofMinutes(15), OutagePolicy.FAIL_CLOSED));
        assertThat(settings.bucket("search").orElseThrow().onOutage()).isEqualTo(OutagePolicy.FAIL_OPEN);
    }

    @Test
    @DisplayName("a bucket given as environment variables is found (RATELIMITER_BUCKETS_PASSWORD_RESET_LIMIT)")
    void bucketFromEnvironmentNames() {
        Map<String, String> env = Map.of(
                "RATELIMITER_BUCKETS_PASSWORD_RESET_LIMIT", "3",
                "RATELIMITER_BUCKETS_PASSWORD_RESET_WINDOW", "PT1H");
        // MicroProfile Config finds ratelimiter.buckets.password-reset.limit under its environment form
        properties.put("ratelimiter.buckets.password-reset.limit", "3");
        properties.put("ratelimiter.buckets.password-reset.window", "PT1H");
        LimiterSettings settings = SettingsReader.read(name -> Optional.ofNullable(properties.get(name)),
                new java.util.ArrayList<>(new java.util.HashSet<String>() {{
                    addAll(env.keySet());
                    addAll(Map.of("ratelimiter.buckets.api-authenticated.limit", "",
                            "ratelimiter.buckets.api-anonymous.limit", "").keySet());
                }}));
        assertThat(settings.bucket("password-reset")).contains(Bucket.of("password-reset", 3, Duration.ofHours(1)));
    }

    @Test
    @DisplayName("count and what a failure is, as properties and as environment variables of a hyphenated bucket "
            + "(RATELIMITER_BUCKETS_LOGIN_ADDRESS_FAILURE_STATUSES): read for that bucket, never as a bucket "
            + "named login-address-failure")
    void failureCounting() {
        Map<String, String> env = Map.of(
                "RATELIMITER_BUCKETS_LOGIN_ADDRESS_LIMIT", "20",
                "RATELIMITER_BUCKETS_LOGIN_ADDRESS_WINDOW", "PT15M",
                "RATELIMITER_BUCKETS_LOGIN_ADDRESS_COUNT", "failures",
                "RATELIMITER_BUCKETS_LOGIN_ADDRESS_FAILURE_STATUSES", "401, 403, 500-599",
                "RATELIMITER_BUCKETS_LOGIN_ADDRESS_FAILURE_EXCEPTIONS", "com.example.BadCredentials");
        // MicroProfile Config answers the dotted names from their environment form
        properties.put("ratelimiter.buckets.login-address.limit", "20");
        properties.put("ratelimiter.buckets.login-address.window", "PT15M");
        properties.put("ratelimiter.buckets.login-address.count", " Failures ");
        properties.put("ratelimiter.buckets.login-address.failure-statuses", "401, 403, 500-599");
        properties.put("ratelimiter.buckets.login-address.failure-exceptions", "com.example.BadCredentials");
        properties.put("ratelimiter.buckets.search.limit", "10");
        properties.put("ratelimiter.buckets.search.window", "PT1S");
        java.util.List<String> names = new java.util.ArrayList<>(env.keySet());
        names.add("ratelimiter.buckets.search.limit");
        names.add("ratelimiter.buckets.api-authenticated.limit");
        names.add("ratelimiter.buckets.api-anonymous.limit");

        LimiterSettings settings = SettingsReader.read(name -> Optional.ofNullable(properties.get(name)), names);

        assertThat(settings.buckets()).containsOnlyKeys("login-address", "search", "api-authenticated",
                "api-anonymous");
        FailureCounting counting = settings.counting(settings.bucket("login-address").orElseThrow());
        assertThat(counting.failuresOnly()).isTrue();
        assertThat(counting.exceptions()).containsExactly("com.example.BadCredentials");
        assertThat(counting.statuses()).containsExactly(new FailureCounting.StatusRange(401, 401),
                new FailureCounting.StatusRange(403, 403), new FailureCounting.StatusRange(500, 599));
        assertThat(counting.failedWith(404)).isFalse();
        assertThat(counting.failedWith(503)).isTrue();
        assertThat(settings.counting(settings.bucket("search").orElseThrow())).isEqualTo(FailureCounting.ALL);
    }

    @Test
    @DisplayName("mode: enforce by default; shadow (any case, trimmed) lists the bucket among the shadow buckets, also as an environment variable")
    void shadowMode() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT15M");
        properties.put("ratelimiter.buckets.login.mode", " Shadow ");
        properties.put("ratelimiter.buckets.search.limit", "10");
        properties.put("ratelimiter.buckets.search.window", "PT1S");
        properties.put("ratelimiter.buckets.search.mode", "enforce");
        properties.put("ratelimiter.buckets.api-anonymous.mode", "shadow");
        LimiterSettings settings = read();
        assertThat(settings.shadowBuckets()).containsExactly("api-anonymous", "login");
        assertThat(settings.shadow(settings.bucket("login").orElseThrow())).isTrue();
        assertThat(settings.shadow(settings.bucket("search").orElseThrow())).isFalse();
        assertThat(settings.shadow(settings.bucket("api-authenticated").orElseThrow())).isFalse();
        assertThat(settings.bucket("login")).as("the bucket itself is unchanged")
                .contains(Bucket.of("login", 5, Duration.ofMinutes(15)));

        Map<String, String> env = Map.of("RATELIMITER_BUCKETS_TRIAL_LIMIT", "2",
                "RATELIMITER_BUCKETS_TRIAL_WINDOW", "PT1H", "RATELIMITER_BUCKETS_TRIAL_MODE", "shadow");
        properties.put("ratelimiter.buckets.trial.limit", "2");
        properties.put("ratelimiter.buckets.trial.window", "PT1H");
        properties.put("ratelimiter.buckets.trial.mode", "shadow");
        properties.remove("ratelimiter.buckets.api-anonymous.mode");
        java.util.List<String> names = new java.util.ArrayList<>(env.keySet());
        names.addAll(java.util.List.of("ratelimiter.buckets.api-authenticated.limit",
                "ratelimiter.buckets.api-anonymous.limit"));
        assertThat(SettingsReader.read(name -> Optional.ofNullable(properties.get(name)), names).shadowBuckets())
                .containsExactly("trial");
    }

    @Test
    @DisplayName("an unknown mode fails naming the property and the two modes; a mode without limit and window names the missing one")
    void badMode() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT15M");
        properties.put("ratelimiter.buckets.login.mode", "dry-run");
        properties.put("ratelimiter.buckets.trial.mode", "shadow");
        assertProblem("ratelimiter.buckets.login.mode: 'dry-run' is not a mode; use enforce or shadow",
                "ratelimiter.buckets.trial.limit: bucket 'trial' is configured without it");
    }

    @Test
    @DisplayName("a window below a second or not whole fails, naming the property")
    void badWindow() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT0.5S");
        assertProblem("ratelimiter.buckets.login.window", "whole number of seconds");
    }

    @Test
    @DisplayName("a window that is not ISO-8601 fails, naming the property")
    void unparsableWindow() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "15m");
        assertProblem("ratelimiter.buckets.login.window", "ISO-8601");
    }

    @Test
    @DisplayName("a limit of 0, or not a number, fails, naming the property")
    void badLimit() {
        properties.put("ratelimiter.buckets.login.limit", "0");
        properties.put("ratelimiter.buckets.login.window", "PT1M");
        properties.put("ratelimiter.buckets.search.limit", "ten");
        properties.put("ratelimiter.buckets.search.window", "PT1M");
        assertProblem("ratelimiter.buckets.login.limit", "ratelimiter.buckets.search.limit", "'ten'");
    }

    @Test
    @DisplayName("a bucket without a window fails, naming the missing property")
    void missingWindow() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        assertProblem("ratelimiter.buckets.login.window");
    }

    @Test
    @DisplayName("an unknown backend, policy, boolean or trusted proxy fails, each naming its property")
    void badValues() {
        properties.put("ratelimiter.backend", "memcached");
        properties.put("ratelimiter.enabled", "yes");
        properties.put("ratelimiter.trusted-proxies", "10.0.0.0/8, proxy.example");
        properties.put("ratelimiter.buckets.api-anonymous.on-outage", "retry");
        properties.put("ratelimiter.memory.max-keys", "-1");
        assertProblem("ratelimiter.backend: 'memcached'", "ratelimiter.enabled: 'yes'",
                "ratelimiter.trusted-proxies: 'proxy.example'", "ratelimiter.buckets.api-anonymous.on-outage",
                "ratelimiter.memory.max-keys");
    }

    @ParameterizedTest
    @CsvSource({"auto,AUTO", "microprofile,MICROPROFILE", "Micrometer,MICROMETER", " opentelemetry ,OPENTELEMETRY",
            "NONE,NONE"})
    @DisplayName("ratelimiter.metrics.system takes its five values, in any case")
    void metricsSystem(String text, MetricsSystem expected) {
        properties.put("ratelimiter.metrics.system", text);
        assertThat(read().metricsSystem()).isEqualTo(expected);
    }

    @Test
    @DisplayName("ratelimiter.headers.fields takes draft-10, draft-6 and x-ratelimit, comma-separated, in any case")
    void headerFields() {
        properties.put("ratelimiter.headers.fields", " X-RateLimit , draft-6 ");
        assertThat(read().headerFields()).containsExactlyInAnyOrder(HeaderFields.DRAFT_6, HeaderFields.X_RATELIMIT);
        properties.put("ratelimiter.headers.fields", "draft-10,x-ratelimit");
        assertThat(read().headerFields()).containsExactlyInAnyOrder(HeaderFields.DRAFT_10, HeaderFields.X_RATELIMIT);
    }

    @Test
    @DisplayName("an unknown family of header fields, or none named, fails naming the property and the values it takes")
    void badHeaderFields() {
        properties.put("ratelimiter.headers.fields", "draft-10,draft-7");
        assertProblem("ratelimiter.headers.fields: 'draft-7' is not a family of header fields; use draft-10, draft-6 "
                + "or x-ratelimit, comma-separated");
        properties.put("ratelimiter.headers.fields", " , ");
        assertProblem("ratelimiter.headers.fields: names no header fields; name at least one of draft-10, draft-6 or "
                + "x-ratelimit (to leave them off allowed responses, set ratelimiter.headers.on-success=false)");
    }

    @Test
    @DisplayName("an unknown metrics system fails, naming the property and the values it takes")
    void unknownMetricsSystem() {
        properties.put("ratelimiter.metrics.system", "prometheus");
        assertProblem("ratelimiter.metrics.system: 'prometheus' is not a metrics system; use auto, microprofile, "
                + "micrometer, opentelemetry or none");
    }

    @Test
    @DisplayName("bucket names outside the allowed pattern fail, naming the property")
    void badBucketName() {
        properties.put("ratelimiter.buckets.Login.limit", "5");
        properties.put("ratelimiter.buckets.Login.window", "PT1M");
        assertProblem("ratelimiter.buckets.Login", "[a-z0-9]");
    }

    @Test
    @DisplayName("lists are comma-separated and trimmed; path prefixes gain a trailing slash")
    void lists() {
        properties.put("ratelimiter.api.path-prefixes", "/api/, /v2");
        properties.put("ratelimiter.trusted-proxies", " 10.0.0.0/8 ,::1 ");
        LimiterSettings settings = read();
        assertThat(settings.pathPrefixes()).containsExactly("/api/", "/v2/");
        assertThat(settings.trustedProxies().entries()).containsExactly("10.0.0.0/8", "::1");
    }

    @Test
    @DisplayName("a block after a refusal: its first length, the longest, and how long it is remembered (a day when "
            + "unset)")
    void block() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT15M");
        properties.put("ratelimiter.buckets.login.block", "PT1H");
        properties.put("ratelimiter.buckets.login.block-max", "PT8H");
        LimiterSettings settings = read();
        assertThat(settings.block("login")).contains(new BlockSettings(Duration.ofHours(1), Duration.ofHours(8),
                Duration.ofDays(1)));
        assertThat(settings.block("login").orElseThrow().length(5)).as("1, 2, 4, 8, 8, 8 h").isEqualTo(
                Duration.ofHours(8));
        assertThat(settings.block("api-anonymous")).isEmpty();

        properties.remove("ratelimiter.buckets.login.block-max");
        properties.put("ratelimiter.buckets.login.block", "P366D");
        assertThat(read().block("login")).as("blocks that do not grow keep no count: the day to forget it is "
                + "no matter").contains(new BlockSettings(Duration.ofDays(366), Duration.ofDays(366), Duration.ofDays(1)));
    }

    @Test
    @DisplayName("a concurrency bucket: its permits and a lease of 30 s unset; concurrency wins over the limit and "
            + "window the library's defaults give a global bucket")
    void concurrency() {
        properties.put("ratelimiter.buckets.exports.concurrency", "2");
        properties.put("ratelimiter.buckets.api-anonymous.concurrency", "10");
        properties.put("ratelimiter.buckets.api-anonymous.limit", "120");
        properties.put("ratelimiter.buckets.api-anonymous.window", "PT1M");
        properties.put("ratelimiter.buckets.api-anonymous.lease", "PT2M");
        LimiterSettings settings = read();
        assertThat(settings.bucket("exports")).hasValueSatisfying(bucket -> {
            assertThat(bucket.isConcurrency()).isTrue();
            assertThat(bucket.limit()).isEqualTo(2);
            assertThat(bucket.lease()).isEqualTo(Duration.ofSeconds(30));
        });
        assertThat(settings.bucket("api-anonymous")).hasValueSatisfying(bucket -> {
            assertThat(bucket.isConcurrency()).isTrue();
            assertThat(bucket.limit()).isEqualTo(10);
            assertThat(bucket.lease()).isEqualTo(Duration.ofMinutes(2));
        });
    }

    @Test
    @DisplayName("a concurrency bucket's plan: its limit is the plan's permits, under the bucket's lease")
    void concurrencyPlans() {
        properties.put("ratelimiter.buckets.exports.concurrency", "2");
        properties.put("ratelimiter.buckets.exports.plans", "pro");
        properties.put("ratelimiter.buckets.exports.plans.pro.limit", "10");
        assertThat(read().plans("exports").plan("pro")).hasValueSatisfying(bucket -> {
            assertThat(bucket.isConcurrency()).isTrue();
            assertThat(bucket.limit()).isEqualTo(10);
            assertThat(bucket.lease()).isEqualTo(Duration.ofSeconds(30));
            assertThat(bucket.plan()).isEqualTo("pro");
        });
        properties.put("ratelimiter.buckets.exports.plans.pro.limit", "20000");
        assertProblem("ratelimiter.buckets.exports.plans.pro", "at most 10000 permits");
    }

    @Test
    @DisplayName("a concurrency bucket's bad values fail the start, each naming its property and what to do")
    void badConcurrency() {
        properties.put("ratelimiter.buckets.exports.concurrency", "0");
        assertProblem("ratelimiter.buckets.exports.concurrency: 0 is out of range from 1 to 10000");
        properties.put("ratelimiter.buckets.exports.concurrency", "10001");
        assertProblem("ratelimiter.buckets.exports.concurrency: 10001 is out of range from 1 to 10000");
        properties.put("ratelimiter.buckets.exports.concurrency", "2");
        properties.put("ratelimiter.buckets.exports.lease", "PT2H");
        assertProblem("ratelimiter.buckets.exports.lease: 'PT2H' is out of range");
        properties.put("ratelimiter.buckets.exports.lease", "PT1.5S");
        assertProblem("ratelimiter.buckets.exports.lease: 'PT1.5S' must be a whole number of seconds");
        properties.remove("ratelimiter.buckets.exports.lease");
        properties.put("ratelimiter.buckets.exports.algorithm", "token-bucket");
        assertProblem("ratelimiter.buckets.exports.algorithm: bucket 'exports' limits concurrency");
        properties.remove("ratelimiter.buckets.exports.algorithm");
        properties.put("ratelimiter.buckets.exports.burst", "5");
        assertProblem("ratelimiter.buckets.exports.burst: bucket 'exports' is a concurrency, which has no burst");
        properties.remove("ratelimiter.buckets.exports.burst");
        properties.put("ratelimiter.buckets.exports.block", "PT1H");
        assertProblem("ratelimiter.buckets.exports.block: bucket 'exports' limits concurrency",
                "remove ratelimiter.buckets.exports.block");
        properties.remove("ratelimiter.buckets.exports.block");
        properties.put("ratelimiter.buckets.exports.count", "failures");
        assertProblem("ratelimiter.buckets.exports.count: bucket 'exports' limits concurrency",
                "remove ratelimiter.buckets.exports.count");
        properties.remove("ratelimiter.buckets.exports.count");
        properties.remove("ratelimiter.buckets.exports.concurrency");
        properties.put("ratelimiter.buckets.exports.limit", "2");
        properties.put("ratelimiter.buckets.exports.window", "PT30S");
        properties.put("ratelimiter.buckets.exports.algorithm", "concurrency");
        assertProblem("ratelimiter.buckets.exports.algorithm: 'concurrency' is not an algorithm; use fixed-window, "
                + "token-bucket or sliding-window; limit concurrency with ratelimiter.buckets.exports.concurrency "
                + "instead");
    }

    @Test
    @DisplayName("quota leases: the share in percent of the smallest capacity, idle after 1 s unset; a bucket without "
            + "them has none")
    void quotaLeases() {
        properties.put("ratelimiter.buckets.search.limit", "50000");
        properties.put("ratelimiter.buckets.search.window", "PT1S");
        properties.put("ratelimiter.buckets.search.quota-lease-percent", "5");
        properties.put("ratelimiter.buckets.tenants.limits", "100/PT1S, 1000/PT1M");
        properties.put("ratelimiter.buckets.tenants.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.tenants.burst", "40");
        properties.put("ratelimiter.buckets.tenants.quota-lease-percent", "10");
        properties.put("ratelimiter.buckets.tenants.quota-lease-idle", "PT0.2S");

        LimiterSettings settings = read();

        assertThat(settings.quotaLeases()).containsOnlyKeys("search", "tenants");
        QuotaLeaseSettings search = settings.quotaLeases().get("search");
        assertThat(search.idle()).isEqualTo(Duration.ofSeconds(1));
        assertThat(search.largestLease(settings.buckets().get("search"))).isEqualTo(2_500);
        QuotaLeaseSettings tenants = settings.quotaLeases().get("tenants");
        assertThat(tenants.idle()).isEqualTo(Duration.ofMillis(200));
        assertThat(tenants.largestLease(settings.buckets().get("tenants"))).as("10 % of the burst, the smallest")
                .isEqualTo(4);
    }

    @Test
    @DisplayName("quota leases' bad values and buckets that cannot lease fail the start, each naming its property")
    void badQuotaLeases() {
        properties.put("ratelimiter.buckets.search.limit", "100");
        properties.put("ratelimiter.buckets.search.window", "PT1M");
        properties.put("ratelimiter.buckets.search.quota-lease-percent", "0");
        assertProblem("ratelimiter.buckets.search.quota-lease-percent: 0 is out of range from 1 to 100");
        properties.put("ratelimiter.buckets.search.quota-lease-percent", "5");
        properties.put("ratelimiter.buckets.search.quota-lease-idle", "PT0.01S");
        assertProblem("ratelimiter.buckets.search.quota-lease-idle: 'PT0.01S' is out of range");
        properties.remove("ratelimiter.buckets.search.quota-lease-percent");
        properties.put("ratelimiter.buckets.search.quota-lease-idle", "PT1S");
        assertProblem("ratelimiter.buckets.search.quota-lease-idle: set ratelimiter.buckets.search.quota-lease-percent "
                + "too");
        properties.remove("ratelimiter.buckets.search.quota-lease-idle");
        properties.put("ratelimiter.buckets.search.quota-lease-percent", "5");
        properties.put("ratelimiter.buckets.search.algorithm", "sliding-window");
        assertProblem("ratelimiter.buckets.search.quota-lease-percent: bucket 'search' is a sliding-window",
                "set ratelimiter.buckets.search.algorithm to fixed-window or token-bucket");
        properties.remove("ratelimiter.buckets.search.algorithm");
        properties.put("ratelimiter.buckets.search.block", "PT1H");
        assertProblem("ratelimiter.buckets.search.quota-lease-percent: bucket 'search' blocks after a refusal",
                "remove ratelimiter.buckets.search.block or ratelimiter.buckets.search.quota-lease-percent");
        properties.remove("ratelimiter.buckets.search.block");
        properties.put("ratelimiter.buckets.search.concurrency", "4");
        assertProblem("ratelimiter.buckets.search.quota-lease-percent: bucket 'search' is a concurrency",
                "remove ratelimiter.buckets.search.quota-lease-percent");
    }

    @Test
    @DisplayName("bounded waits: max-wait on the bucket, max-waiting 25 unset; a bucket without max-wait waits for "
            + "nothing")
    void waits() {
        properties.put("ratelimiter.buckets.partner.limit", "20");
        properties.put("ratelimiter.buckets.partner.window", "PT1S");
        properties.put("ratelimiter.buckets.partner.max-wait", "PT2S");
        properties.put("ratelimiter.buckets.quotes.limit", "100");
        properties.put("ratelimiter.buckets.quotes.window", "PT1M");
        properties.put("ratelimiter.buckets.quotes.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.quotes.max-wait", "PT0.25S");
        properties.put("ratelimiter.buckets.quotes.max-waiting", "400");
        properties.put("ratelimiter.buckets.search.limit", "100");
        properties.put("ratelimiter.buckets.search.window", "PT1M");

        LimiterSettings settings = read();

        assertThat(settings.buckets().get("partner").maxWait()).isEqualTo(Duration.ofSeconds(2));
        assertThat(settings.buckets().get("partner").reserves()).as("a fixed window waits for its end").isFalse();
        assertThat(settings.buckets().get("quotes").maxWait()).isEqualTo(Duration.ofMillis(250));
        assertThat(settings.buckets().get("quotes").reserves()).isTrue();
        assertThat(settings.buckets().get("search").maxWait()).isZero();
        assertThat(settings.maxWaiting()).containsOnly(Map.entry("partner", 25), Map.entry("quotes", 400));
    }

    @Test
    @DisplayName("upstream holds: upstream-hold-max alone holds without blocking after a refusal; beside a block, the "
            + "key's block window is the longer of the two; bad values fail the start naming the property")
    void upstreamHolds() {
        properties.put("ratelimiter.buckets.partner.limit", "20");
        properties.put("ratelimiter.buckets.partner.window", "PT1S");
        properties.put("ratelimiter.buckets.partner.upstream-hold-max", "PT1M");
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT15M");
        properties.put("ratelimiter.buckets.login.block", "PT30S");
        properties.put("ratelimiter.buckets.login.upstream-hold-max", "PT2M");

        LimiterSettings settings = read();

        BlockSettings partner = settings.blocks().get("partner");
        assertThat(partner.holdsForUpstream()).isTrue();
        assertThat(partner.blocksAfterRefusal()).isFalse();
        assertThat(partner.longest()).isEqualTo(Duration.ofMinutes(1));
        BlockSettings login = settings.blocks().get("login");
        assertThat(login.blocksAfterRefusal()).isTrue();
        assertThat(login.longest()).isEqualTo(Duration.ofMinutes(2));

        properties.put("ratelimiter.buckets.partner.upstream-hold-max", "PT0.5S");
        assertProblem("ratelimiter.buckets.partner.upstream-hold-max: 'PT0.5S' is out of range");
        properties.put("ratelimiter.buckets.partner.upstream-hold-max", "PT1.5S");
        assertProblem("ratelimiter.buckets.partner.upstream-hold-max: 'PT1.5S' must be a whole number of seconds");
        properties.put("ratelimiter.buckets.partner.upstream-hold-max", "PT1M");
        properties.put("ratelimiter.buckets.partner.quota-lease-percent", "5");
        assertProblem("ratelimiter.buckets.partner.quota-lease-percent: bucket 'partner' holds for its upstream",
                "remove ratelimiter.buckets.partner.upstream-hold-max or ratelimiter.buckets.partner.quota-lease-percent");
    }

    @Test
    @DisplayName("bounded waits' bad values and buckets that cannot wait fail the start, each naming its property")
    void badWaits() {
        properties.put("ratelimiter.buckets.partner.limit", "20");
        properties.put("ratelimiter.buckets.partner.window", "PT1S");
        properties.put("ratelimiter.buckets.partner.max-wait", "PT2M");
        assertProblem("ratelimiter.buckets.partner.max-wait: 'PT2M' is out of range");
        // verdicts tell time in milliseconds: a wait of a fraction of one would be cut, and a reservation run early
        properties.put("ratelimiter.buckets.partner.max-wait", "PT2.0005S");
        assertProblem("ratelimiter.buckets.partner.max-wait: 'PT2.0005S' must be a whole number of milliseconds");
        properties.put("ratelimiter.buckets.partner.max-wait", "PT2S");
        properties.put("ratelimiter.buckets.partner.max-waiting", "0");
        assertProblem("ratelimiter.buckets.partner.max-waiting: 0 is out of range from 1 to 10000");
        properties.remove("ratelimiter.buckets.partner.max-wait");
        properties.put("ratelimiter.buckets.partner.max-waiting", "10");
        assertProblem("ratelimiter.buckets.partner.max-waiting: set ratelimiter.buckets.partner.max-wait too");
        properties.remove("ratelimiter.buckets.partner.max-waiting");
        properties.put("ratelimiter.buckets.partner.max-wait", "PT2S");
        properties.put("ratelimiter.buckets.partner.concurrency", "4");
        assertProblem("ratelimiter.buckets.partner.max-wait: bucket 'partner' is a concurrency bucket",
                "remove ratelimiter.buckets.partner.max-wait");
        properties.remove("ratelimiter.buckets.partner.max-wait");
        properties.remove("ratelimiter.buckets.partner.concurrency");
        properties.put("ratelimiter.buckets.api-anonymous.max-wait", "PT1S");
        assertProblem("ratelimiter.buckets.api-anonymous.max-wait: bucket 'api-anonymous' is the global filter's",
                "set it on a bucket of a @RateLimited method");
        properties.remove("ratelimiter.buckets.api-anonymous.max-wait");
        properties.put("ratelimiter.buckets.partner.max-wait", "PT1S");
        properties.put("ratelimiter.buckets.partner.quota-lease-percent", "5");
        assertProblem("ratelimiter.buckets.partner.max-wait: bucket 'partner' leases quota",
                "remove ratelimiter.buckets.partner.quota-lease-percent or ratelimiter.buckets.partner.max-wait");
    }

    @Test
    @DisplayName("upstream-hold-max on a concurrency bucket names upstream-hold-max, not block, as what to remove")
    void upstreamHoldsOnAConcurrencyBucket() {
        properties.put("ratelimiter.buckets.partner.concurrency", "4");
        properties.put("ratelimiter.buckets.partner.upstream-hold-max", "PT1M");
        assertProblem("ratelimiter.buckets.partner.upstream-hold-max: bucket 'partner' limits concurrency",
                "remove ratelimiter.buckets.partner.upstream-hold-max");
    }

    @Test
    @DisplayName("a block's bad values fail the start, each naming its property and what to set")
    void badBlocks() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT15M");
        properties.put("ratelimiter.buckets.login.block-max", "PT8H");
        assertProblem("ratelimiter.buckets.login.block-max: set ratelimiter.buckets.login.block too");
        properties.put("ratelimiter.buckets.login.block", "PT9H");
        assertProblem("ratelimiter.buckets.login.block-max: PT8H is shorter than ratelimiter.buckets.login.block");
        properties.put("ratelimiter.buckets.login.block", "PT0.5S");
        assertProblem("ratelimiter.buckets.login.block: 'PT0.5S' is out of range");
        properties.put("ratelimiter.buckets.login.block", "PT1.5S");
        assertProblem("ratelimiter.buckets.login.block: 'PT1.5S' must be a whole number of seconds");
        properties.put("ratelimiter.buckets.login.block", "an hour");
        assertProblem("ratelimiter.buckets.login.block: 'an hour' is not an ISO-8601 duration");
        properties.put("ratelimiter.buckets.login.block", "PT1H");
        properties.put("ratelimiter.buckets.login.block-max", "P300D");
        properties.put("ratelimiter.buckets.login.block-forget-after", "P100D");
        assertProblem("ratelimiter.buckets.login.block-forget-after: PT2400H after a block of up to PT7200H is "
                + "beyond PT8784H");
    }

    @Test
    @DisplayName("ratelimiter.api.enabled=false turns the global limit off")
    void globalLimitSwitch() {
        properties.put("ratelimiter.api.enabled", "false");
        assertThat(read().globalLimit()).isFalse();
    }

    @Test
    @DisplayName("a property whose value cannot be read (an unset ${VARIABLE}) fails, naming the property")
    void unreadableProperty() {
        assertThatThrownBy(() -> SettingsReader.read(name -> {
            if (name.equals("ratelimiter.key-secret")) {
                throw new java.util.NoSuchElementException("SRCFG00011: Could not expand value RATE_LIMIT_KEY_SECRET");
            }
            return Optional.ofNullable(properties.get(name));
        }, properties.keySet())).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.key-secret: cannot be read: SRCFG00011");
    }

    @Test
    @DisplayName("issue 14: window PT9999999999999999S fails the start naming the property and its range")
    void hugeWindowFails() {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT9999999999999999S");
        assertProblem("ratelimiter.buckets.login.window: 'PT9999999999999999S' must be a whole number of seconds "
                + "from PT1S to P366D");
    }

    @Test
    @DisplayName("breaker: defaults 3 failures, 1 s doubling to 30 s, 3 successes; each of the four is read")
    void breaker() {
        assertThat(read().breaker()).isEqualTo(BreakerSettings.DEFAULTS);
        properties.put("ratelimiter.breaker.failure-threshold", "5");
        properties.put("ratelimiter.breaker.initial-backoff", "PT0.5S");
        properties.put("ratelimiter.breaker.max-backoff", "PT2M");
        properties.put("ratelimiter.breaker.success-threshold", "2");
        assertThat(read().breaker())
                .isEqualTo(new BreakerSettings(5, Duration.ofMillis(500), Duration.ofMinutes(2), 2));
    }

    @Test
    @DisplayName("breaker: initial-backoff PT2M alone raises the longest back-off to PT2M; max-backoff below "
            + "initial-backoff fails naming max-backoff")
    void breakerBackoffOrder() {
        properties.put("ratelimiter.breaker.initial-backoff", "PT2M");
        assertThat(read().breaker().maxBackoff()).isEqualTo(Duration.ofMinutes(2));
        properties.put("ratelimiter.breaker.max-backoff", "PT1M");
        assertProblem("ratelimiter.breaker.max-backoff: PT1M is below ratelimiter.breaker.initial-backoff PT2M");
    }

    @ParameterizedTest(name = "{0}: {1} and {2} accepted, {3} and {4} refused")
    @CsvSource({
            "ratelimiter.buckets.login.limit,       1,         1000000000000, 0,           1000000000001",
            "ratelimiter.buckets.login.window,      PT1S,      P366D,         PT0S,        P366DT1S",
            "ratelimiter.ipv6-prefix-length,        1,         128,           0,           129",
            "ratelimiter.memory.max-keys,           1,         100000000,     0,           100000001",
            "ratelimiter.memory.sweep-interval,     PT1S,      P1D,           PT0.999S,    P1DT0.001S",
            "ratelimiter.deny-cache.max-age,        PT0S,      PT1M,          PT-0.001S,   PT1M0.001S",
            "ratelimiter.breaker.failure-threshold, 1,         1000,          0,           1001",
            "ratelimiter.breaker.success-threshold, 1,         1000,          0,           1001",
            "ratelimiter.breaker.initial-backoff,   PT0.001S,  PT1H,          PT0.0009S,   PT1H0.001S",
            "ratelimiter.breaker.max-backoff,       PT1S,      PT1H,          PT0S,        PT1H0.001S",
            "ratelimiter.plans.cache-ttl,           PT0S,      PT1H,          PT-0.001S,   PT1H0.001S",
            "ratelimiter.plans.cache-max-entries,   1,         10000000,      0,           10000001"})
    @DisplayName("every number and duration is accepted at both ends of its range and refused just outside, named")
    void rangesAreInclusive(String property, String min, String max, String below, String above) {
        properties.put("ratelimiter.buckets.login.limit", "5");
        properties.put("ratelimiter.buckets.login.window", "PT1M");
        RangeChecks.inclusive(properties, this::read, property, min, max, below, above);
    }

    @Test
    @DisplayName("limits: '10/PT1S, 1000/PT1H' gives a bucket of two windows, shortest first; it wins over the library's limit and window")
    void severalWindows() {
        properties.put("ratelimiter.buckets.projects.limits", "1000/PT1H, 10/PT1S");
        properties.put("ratelimiter.buckets.api-anonymous.limits", "20/PT1S,120/PT1M");
        properties.put("ratelimiter.buckets.projects.on-outage", "fail-open");
        LimiterSettings settings = read();
        assertThat(settings.bucket("projects")).contains(Bucket.of("projects", java.util.List.of(
                new Limit(10, Duration.ofSeconds(1)), new Limit(1_000, Duration.ofHours(1))),
                OutagePolicy.FAIL_OPEN));
        assertThat(settings.bucket("api-anonymous").orElseThrow().limits())
                .containsExactly(new Limit(20, Duration.ofSeconds(1)),
                        new Limit(120, Duration.ofMinutes(1)));
    }

    @Test
    @DisplayName("limits as an environment variable: RATELIMITER_BUCKETS_PROJECTS_LIMITS=10/PT1S,1000/PT1H")
    void severalWindowsFromEnvironmentNames() {
        properties.put("ratelimiter.buckets.projects.limits", "10/PT1S,1000/PT1H");
        java.util.List<String> names = new java.util.ArrayList<>(properties.keySet());
        names.remove("ratelimiter.buckets.projects.limits");
        names.add("RATELIMITER_BUCKETS_PROJECTS_LIMITS");
        LimiterSettings settings = SettingsReader.read(name -> Optional.ofNullable(properties.get(name)), names);
        assertThat(settings.bucket("projects").orElseThrow().limits()).hasSize(2);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "10 PT1S|is not <limit>/<window>",
            "10/PT1S, ten/PT1H|'ten' is not a whole number",
            "10/PT0.5S|must be a whole number of seconds",
            "10/PT1S, 20/PT1S|two windows of PT1S",
            "0/PT1S|0 is out of range",
            "1/PT1S,2/PT2S,3/PT3S,4/PT4S,5/PT5S,6/PT6S,7/PT7S,8/PT8S,9/PT9S|from 1 to 8 windows"})
    @DisplayName("a malformed limits value fails the start, naming the property")
    void malformedLimits(String value, String problem) {
        properties.put("ratelimiter.buckets.projects.limits", value);
        assertProblem("ratelimiter.buckets.projects.limits", problem);
    }

    @Test
    @DisplayName("algorithm: fixed-window by default; token-bucket (any case, trimmed) with its burst, also as environment variables")
    void tokenBucket() {
        properties.put("ratelimiter.buckets.reports.limit", "20");
        properties.put("ratelimiter.buckets.reports.window", "PT1M");
        properties.put("ratelimiter.buckets.reports.algorithm", " Token-Bucket ");
        properties.put("ratelimiter.buckets.reports.burst", "5");
        properties.put("ratelimiter.buckets.smooth.limits", "10/PT1S, 100/PT1M");
        properties.put("ratelimiter.buckets.smooth.algorithm", "token-bucket");
        LimiterSettings settings = read();
        Bucket reports = settings.bucket("reports").orElseThrow();
        assertThat(reports.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
        assertThat(reports.burst()).isEqualTo(5);
        assertThat(reports.largestCost()).isEqualTo(5);
        assertThat(tokenIntervalMicros(reports, 0)).isEqualTo(3_000_000);
        Bucket smooth = settings.bucket("smooth").orElseThrow();
        assertThat(smooth.burst()).as("unset: the shortest window's limit").isEqualTo(10);
        assertThat(capacity(smooth, 1)).isEqualTo(100);
        assertThat(settings.bucket("api-anonymous").orElseThrow().algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);

        Map<String, String> env = Map.of("RATELIMITER_BUCKETS_TRIAL_LIMIT", "2",
                "RATELIMITER_BUCKETS_TRIAL_WINDOW", "PT1H", "RATELIMITER_BUCKETS_TRIAL_ALGORITHM", "token-bucket",
                "RATELIMITER_BUCKETS_TRIAL_BURST", "1");
        properties.put("ratelimiter.buckets.trial.limit", "2");
        properties.put("ratelimiter.buckets.trial.window", "PT1H");
        properties.put("ratelimiter.buckets.trial.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.trial.burst", "1");
        java.util.List<String> names = new java.util.ArrayList<>(env.keySet());
        names.addAll(java.util.List.of("ratelimiter.buckets.api-authenticated.limit",
                "ratelimiter.buckets.api-anonymous.limit"));
        assertThat(SettingsReader.read(name -> Optional.ofNullable(properties.get(name)), names).bucket("trial"))
                .contains(Bucket.of("trial", java.util.List.of(new Limit(2, Duration.ofHours(1))),
                        dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 1));
    }

    @Test
    @DisplayName("algorithm: sliding-window (any case, trimmed), of one window or several, also as an environment variable")
    void slidingWindow() {
        properties.put("ratelimiter.buckets.search.limit", "100");
        properties.put("ratelimiter.buckets.search.window", "PT1H");
        properties.put("ratelimiter.buckets.search.algorithm", " Sliding-Window ");
        properties.put("ratelimiter.buckets.pages.limits", "10/PT1S, 100/PT1M");
        properties.put("ratelimiter.buckets.pages.algorithm", "sliding-window");
        LimiterSettings settings = read();
        Bucket search = settings.bucket("search").orElseThrow();
        assertThat(search.algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW);
        assertThat(search.largestCost()).isEqualTo(100);
        assertThat(settings.bucket("pages").orElseThrow().isSlidingWindow()).isTrue();

        Map<String, String> env = Map.of("RATELIMITER_BUCKETS_TRIAL_LIMIT", "2",
                "RATELIMITER_BUCKETS_TRIAL_WINDOW", "PT1H", "RATELIMITER_BUCKETS_TRIAL_ALGORITHM", "sliding-window");
        java.util.List<String> names = new java.util.ArrayList<>(env.keySet());
        names.addAll(java.util.List.of("ratelimiter.buckets.api-authenticated.limit",
                "ratelimiter.buckets.api-anonymous.limit"));
        java.util.function.Function<String, Optional<String>> environmentFirst = name -> Optional.ofNullable(
                env.get(name.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_')))
                .or(() -> Optional.ofNullable(properties.get(name)));
        assertThat(SettingsReader.read(environmentFirst, names).bucket("trial"))
                .contains(Bucket.of("trial", java.util.List.of(new Limit(2, Duration.ofHours(1))),
                        dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0));
    }

    @Test
    @DisplayName("an unknown algorithm, a burst out of range or on a fixed window, and a token bucket too fast or too slow to fill each fail naming the property")
    void badTokenBuckets() {
        properties.put("ratelimiter.buckets.a.limit", "5");
        properties.put("ratelimiter.buckets.a.window", "PT1M");
        properties.put("ratelimiter.buckets.a.algorithm", "leaky-bucket");
        properties.put("ratelimiter.buckets.b.limit", "5");
        properties.put("ratelimiter.buckets.b.window", "PT1M");
        properties.put("ratelimiter.buckets.b.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.b.burst", "0");
        properties.put("ratelimiter.buckets.c.limit", "5");
        properties.put("ratelimiter.buckets.c.window", "PT1M");
        properties.put("ratelimiter.buckets.c.burst", "3");
        properties.put("ratelimiter.buckets.d.limit", "2000000");
        properties.put("ratelimiter.buckets.d.window", "PT1S");
        properties.put("ratelimiter.buckets.d.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.e.limit", "1");
        properties.put("ratelimiter.buckets.e.window", "P366D");
        properties.put("ratelimiter.buckets.e.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.e.burst", "2");
        properties.put("ratelimiter.buckets.f.limit", "5");
        properties.put("ratelimiter.buckets.f.window", "PT1M");
        properties.put("ratelimiter.buckets.f.algorithm", "sliding-window");
        properties.put("ratelimiter.buckets.f.burst", "3");
        assertProblem("ratelimiter.buckets.a.algorithm: 'leaky-bucket' is not an algorithm; use fixed-window, "
                        + "token-bucket or sliding-window",
                "ratelimiter.buckets.f.burst: bucket 'f' is a sliding-window, which has no burst; remove it, or set "
                        + "ratelimiter.buckets.f.algorithm=token-bucket",
                "ratelimiter.buckets.b.burst", "from 1 to 1000000000000",
                "ratelimiter.buckets.c.burst: bucket 'c' is a fixed-window, which has no burst; remove it, or set "
                        + "ratelimiter.buckets.c.algorithm=token-bucket",
                "ratelimiter.buckets.d.*: bucket 'd': a token bucket refills at most one token per microsecond",
                "ratelimiter.buckets.e.burst: bucket 'e': a token bucket of 2 tokens", "lower the burst");
    }

    @Test
    @DisplayName("window=month, limits=1000/day and zone=Europe/Paris give calendar windows in that zone; zone=UTC is "
            + "UTC's offset, as unset")
    void calendarWindows() {
        properties.put("ratelimiter.buckets.reports.limit", "100000");
        properties.put("ratelimiter.buckets.reports.window", "month");
        properties.put("ratelimiter.buckets.reports.zone", "Europe/Paris");
        properties.put("ratelimiter.buckets.daily.limits", "1000/Day");
        properties.put("ratelimiter.buckets.daily.zone", "UTC");
        LimiterSettings settings = read();
        Bucket reports = settings.buckets().get("reports");
        assertThat(reports.limits()).containsExactly(Limit.perCalendar(100_000, CalendarWindow.MONTH));
        assertThat(reports.zone()).isEqualTo(ZoneId.of("Europe/Paris"));
        Bucket daily = settings.buckets().get("daily");
        assertThat(daily.limits()).containsExactly(Limit.perCalendar(1_000, CalendarWindow.DAY));
        assertThat(daily.zone()).isEqualTo(ZoneOffset.UTC);
    }

    @Test
    @DisplayName("a calendar window with another algorithm, among several windows, or in an unknown zone fails the start "
            + "naming the property to change")
    void calendarWindowMistakes() {
        properties.put("ratelimiter.buckets.a.limit", "10");
        properties.put("ratelimiter.buckets.a.window", "day");
        properties.put("ratelimiter.buckets.a.algorithm", "token-bucket");
        properties.put("ratelimiter.buckets.b.limits", "10/PT1S, 1000/day");
        properties.put("ratelimiter.buckets.c.limit", "10");
        properties.put("ratelimiter.buckets.c.window", "month");
        properties.put("ratelimiter.buckets.c.zone", "Europe/Pariss");
        properties.put("ratelimiter.buckets.d.limit", "10");
        properties.put("ratelimiter.buckets.d.window", "fortnight");
        assertProblem("ratelimiter.buckets.a.algorithm: bucket 'a' is a token-bucket, and its window is a calendar "
                        + "window (day), which counts as a fixed-window only",
                "ratelimiter.buckets.b.limits: bucket 'b' has a calendar window (day) among 2 windows",
                "ratelimiter.buckets.c.zone: 'Europe/Pariss' is not a time zone; use an IANA name such as "
                        + "Europe/Paris",
                "ratelimiter.buckets.d.window: 'fortnight'", "hour, day, week or month");
    }
}
