package dev.ratelimiter.internal.core;

import dev.ratelimiter.spi.ConfigurationException;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Reads {@link LimiterSettings} from configuration properties: every value is parsed here, once, and every
 * problem is collected into one {@link ConfigurationException} whose lines name the property.
 *
 * <p>Buckets are discovered from property names {@code ratelimiter.buckets.<name>.limit|window|limits|on-outage|mode},
 * also in their environment-variable form {@code RATELIMITER_BUCKETS_<NAME>_LIMIT} (bucket names hold no
 * {@code _}, so {@code _} in the name maps back to {@code -}). A bucket needs both {@code limit} and {@code window}
 * (one window), or {@code limits}, which wins over them: a comma-separated list of {@code <limit>/<window>} such as
 * {@code 10/PT1S, 1000/PT1H} (several windows; docs/guide.md#several-windows-per-bucket), one value that reads the same
 * as an environment variable ({@code RATELIMITER_BUCKETS_PROJECTS_LIMITS=10/PT1S,1000/PT1H}). {@code mode} is
 * {@code enforce} (the default) or {@code shadow} (docs/guide.md#shadow-mode). A name under a configuration profile
 * ({@code %dev.ratelimiter.buckets.<name>.limit}, {@code _DEV_RATELIMITER_...}; see {@link ProfiledName}) names a
 * bucket only when the lookup answers for it without the profile, that is when the Config implementation holds that
 * profile active.
 *
 * <p>Every number and duration has a range (docs/reference.md shows each); a value outside it
 * is a problem naming the property and the range. The ranges keep every sum and product the limiter makes from
 * them (window ends, deadlines, pool sizes, header values) far from overflow.
 */
public final class SettingsReader {

    static final String PREFIX = "ratelimiter.";
    static final String BUCKETS = "ratelimiter.buckets.";
    private static final String ENV_BUCKETS = "RATELIMITER_BUCKETS_";
    static final List<String> BUCKET_PROPERTIES = List.of("limit", "window", "limits", "on-outage", "mode");
    /** {@code ratelimiter.buckets.<name>.mode}'s values: refusals enforced (the default), or only counted. */
    static final List<String> MODES = List.of("enforce", "shadow");

    /** Pool sizes (PostgreSQL connections and bulkhead permits). */
    static final Range<Long> POOL_SIZE = Range.of(1L, 1_024L);
    /** Live counters per bucket in memory: a cap on memory (about 200 bytes a counter), 10^8 at most. */
    static final Range<Long> MAX_KEYS = Range.of(1L, 100_000_000L);
    /** Deadlines of a store's calls: a millisecond (the finest the drivers take) to ten minutes. */
    static final Range<Duration> TIMEOUT = Range.of(Duration.ofMillis(1), Duration.ofMinutes(10));
    /**
     * How long a shared store's refusal may be answered from memory: 0 (off) to a minute, since it is also how
     * long a reset on another replica may go unseen.
     */
    static final Range<Duration> DENY_CACHE_MAX_AGE = Range.of(Duration.ZERO, Duration.ofMinutes(1));
    /** Delays between sweeps: a second to a day. */
    static final Range<Duration> SWEEP_INTERVAL = Range.of(Duration.ofSeconds(1), Duration.ofDays(1));
    /** IPv6 prefix lengths. */
    static final Range<Long> IPV6_PREFIX = Range.of(1L, 128L);
    /** Bucket limits ({@link Bucket#MAX_LIMIT}). */
    static final Range<Long> LIMIT = Range.of(1L, Bucket.MAX_LIMIT);
    /** Bucket windows, in whole seconds ({@link Bucket#MAX_WINDOW}). */
    static final Range<Duration> WINDOW = Range.of(Duration.ofSeconds(1), Bucket.MAX_WINDOW);

    /** The circuit breaker's failure and success thresholds: consecutive calls, so a thousand is already lax. */
    static final Range<Long> BREAKER_THRESHOLD = Range.of(1L, 1_000L);
    /** The circuit breaker's back-offs between probes: a millisecond to an hour. */
    static final Range<Duration> BREAKER_BACKOFF = Range.of(Duration.ofMillis(1), Duration.ofHours(1));

    private final Function<String, Optional<String>> lookup;
    private final List<String> propertyNames;
    private final List<String> problems = new ArrayList<>();
    private final Set<String> shadowBuckets = new TreeSet<>();
    private final StoreProviderRegistry stores;

    /**
     * @param lookup        the value of a property, empty if unset (MicroProfile Config's
     *                      {@code getOptionalValue(name, String.class)}, which also finds the environment form)
     * @param propertyNames every property name the configuration knows, to discover buckets
     * @param stores        the store providers found, whose names {@code ratelimiter.backend} accepts
     */
    private SettingsReader(Function<String, Optional<String>> lookup, Iterable<String> propertyNames,
                           StoreProviderRegistry stores) {
        this.lookup = lookup;
        this.stores = stores;
        // Copied once: SmallRye Config 3.16 (Quarkus 3.33) returns an Iterable whose second iterator() throws
        // NoSuchElementException, and the names are walked more than once.
        List<String> names = new ArrayList<>();
        propertyNames.forEach(names::add);
        this.propertyNames = names;
    }

    /**
     * Reads and validates the settings.
     *
     * @param lookup        a property's value, empty if unset; blank values count as unset
     * @param propertyNames every known property name, to discover the configured buckets
     * @return the settings
     * @throws ConfigurationException listing every invalid or missing value, each naming its property
     */
    public static LimiterSettings read(Function<String, Optional<String>> lookup, Iterable<String> propertyNames) {
        return read(lookup, propertyNames, StoreProviderRegistry.load());
    }

    /**
     * Reads and validates the settings, {@code ratelimiter.backend} naming {@code memory} or one of
     * {@code stores}.
     *
     * @param lookup        a property's value, empty if unset; blank values count as unset
     * @param propertyNames every known property name, to discover the configured buckets
     * @param stores        the store providers found
     * @return the settings
     * @throws ConfigurationException listing every invalid or missing value, each naming its property; for an
     *                                unknown store, the names found; for one of the library's own stores whose
     *                                module is absent, the artifact to add
     */
    public static LimiterSettings read(Function<String, Optional<String>> lookup, Iterable<String> propertyNames,
                                       StoreProviderRegistry stores) {
        return new SettingsReader(lookup, propertyNames, stores).read();
    }

    private LimiterSettings read() {
        boolean enabled = bool("enabled", true);
        String backend = backend();
        Map<String, Bucket> buckets = buckets();
        Set<String> named = bucketNames();
        for (String required : List.of(LimiterSettings.API_AUTHENTICATED, LimiterSettings.API_ANONYMOUS)) {
            if (!named.contains(required)) {
                problems.add(BUCKETS + required + ".limit and .window: the global filter's bucket is not "
                        + "configured (the library's own microprofile-config.properties sets them; was it removed?)");
            }
        }
        boolean globalLimit = bool("api.enabled", true);
        List<String> prefixes = list("api.path-prefixes", "/api/").stream().map(this::pathPrefix).toList();
        TrustedProxies trustedProxies = TrustedProxies.NONE;
        try {
            trustedProxies = TrustedProxies.parse(list("trusted-proxies", ""));
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        int ipv6PrefixLength = integer("ipv6-prefix-length", 64, IPV6_PREFIX);
        Optional<String> keySecret = value("key-secret");
        boolean headersOnSuccess = bool("headers.on-success", true);
        int maxKeys = integer("memory.max-keys", 100_000, MAX_KEYS);
        Duration sweepInterval = duration("memory.sweep-interval", Duration.ofSeconds(30), SWEEP_INTERVAL);
        boolean downWhenDegraded = bool("health.down-when-degraded", false);
        BreakerSettings breaker = breaker();
        DenyCacheSettings denyCache = new DenyCacheSettings(
                duration("deny-cache.max-age", Duration.ofSeconds(1), DENY_CACHE_MAX_AGE), maxKeys);
        Optional<String> keyResolver = value("api.key-resolver").map(String::strip);
        MetricsSystem metricsSystem = metricsSystem();
        if (!problems.isEmpty()) {
            throw new ConfigurationException(problems);
        }
        return new LimiterSettings(enabled, backend, buckets, globalLimit, prefixes, trustedProxies, ipv6PrefixLength,
                keySecret, headersOnSuccess, maxKeys, sweepInterval, downWhenDegraded, breaker,
                denyCache, keyResolver, shadowBuckets, metricsSystem);
    }

    private MetricsSystem metricsSystem() {
        String text = value("metrics.system").orElse("auto");
        Optional<MetricsSystem> system = MetricsSystem.parse(text);
        if (system.isEmpty()) {
            problems.add(PREFIX + "metrics.system: '" + text + "' is not a metrics system; use auto, microprofile, "
                    + "micrometer, opentelemetry or none");
        }
        return system.orElse(MetricsSystem.AUTO);
    }

    private BreakerSettings breaker() {
        BreakerSettings defaults = BreakerSettings.DEFAULTS;
        Duration initial = duration("breaker.initial-backoff", defaults.initialBackoff(), BREAKER_BACKOFF);
        // Unset, the longest back-off grows to a longer initial one, so setting one property alone never fails.
        Duration maxDefault = initial.compareTo(defaults.maxBackoff()) > 0 ? initial : defaults.maxBackoff();
        Duration max = duration("breaker.max-backoff", maxDefault, BREAKER_BACKOFF);
        if (max.compareTo(initial) < 0) {
            problems.add(PREFIX + "breaker.max-backoff: " + max + " is below ratelimiter.breaker.initial-backoff "
                    + initial);
            max = initial;
        }
        return new BreakerSettings(integer("breaker.failure-threshold", defaults.failureThreshold(),
                BREAKER_THRESHOLD), initial, max,
                integer("breaker.success-threshold", defaults.successThreshold(), BREAKER_THRESHOLD));
    }

    private Map<String, Bucket> buckets() {
        Map<String, Bucket> buckets = new TreeMap<>();
        for (String name : bucketNames()) {
            String base = BUCKETS + name + ".";
            Optional<String> limitText = lookup(base + "limit");
            Optional<String> windowText = lookup(base + "window");
            Optional<String> limitsText = lookup(base + "limits");
            List<Bucket.Limit> limits;
            if (limitsText.isPresent()) {
                // limits wins over limit and window, so it can replace the one window the library's own
                // microprofile-config.properties gives the global filter's buckets
                // (docs/guide.md#several-windows-per-bucket)
                limits = parseLimits(base + "limits", limitsText.get());
            } else if (limitText.isEmpty() || windowText.isEmpty()) {
                problems.add(base + (limitText.isEmpty() ? "limit" : "window") + ": bucket '" + name
                        + "' is configured without it; a bucket needs both limit and window (or limits)");
                continue;
            } else {
                Long limit = parseLong(base + "limit", limitText.get(), LIMIT);
                Duration window = parseWindow(base + "window", windowText.get());
                limits = limit != null && window != null ? List.of(new Bucket.Limit(limit, window)) : null;
            }
            OutagePolicy onOutage = OutagePolicy.FALLBACK;
            Optional<String> onOutageText = lookup(base + "on-outage");
            if (onOutageText.isPresent()) {
                try {
                    onOutage = OutagePolicy.parse(onOutageText.get());
                } catch (IllegalArgumentException e) {
                    problems.add(base + "on-outage: " + e.getMessage());
                }
            }
            boolean shadow = shadowMode(base + "mode");
            if (limits != null) {
                try {
                    buckets.put(name, new Bucket(name, limits, onOutage));
                    if (shadow) {
                        shadowBuckets.add(name);
                    }
                } catch (IllegalArgumentException e) {
                    problems.add(base + (limitsText.isPresent() ? "limits" : "*") + ": " + e.getMessage());
                }
            }
        }
        return buckets;
    }

    /** Whether a bucket's {@code mode} is {@code shadow}; {@code enforce} when unset or invalid (a problem). */
    private boolean shadowMode(String property) {
        Optional<String> text = lookup(property);
        if (text.isEmpty()) {
            return false;
        }
        String mode = text.get().strip().toLowerCase(Locale.ROOT);
        if (!MODES.contains(mode)) {
            problems.add(property + ": '" + text.get() + "' is not a mode; use enforce or shadow");
            return false;
        }
        return mode.equals("shadow");
    }

    private Set<String> bucketNames() {
        Set<String> names = new TreeSet<>();
        for (String property : propertyNames) {
            Optional<ProfiledName> profiled = ProfiledName.of(property);
            if (profiled.isEmpty()) {
                bucketProperty(property).ifPresent(set -> names.add(set.bucket()));
            } else {
                // Config lists every profile's names; it answers for the name without the profile only when that
                // profile is active (docs/guide.md#configuration-profiles), so only then does the bucket exist.
                bucketProperty(profiled.get().name())
                        .filter(set -> answers(BUCKETS + set.bucket() + "." + set.property()))
                        .ifPresent(set -> names.add(set.bucket()));
            }
        }
        return names;
    }

    /** A bucket's name and one of its {@link #BUCKET_PROPERTIES}. */
    private record BucketProperty(String bucket, String property) {
    }

    /** The bucket property that {@code property} sets, in properties or environment form; empty if none. */
    private static Optional<BucketProperty> bucketProperty(String property) {
        if (property.startsWith(BUCKETS)) {
            String rest = property.substring(BUCKETS.length());
            int dot = rest.lastIndexOf('.');
            if (dot > 0 && BUCKET_PROPERTIES.contains(rest.substring(dot + 1))) {
                return Optional.of(new BucketProperty(rest.substring(0, dot), rest.substring(dot + 1)));
            }
        } else if (property.startsWith(ENV_BUCKETS)) {
            String rest = property.substring(ENV_BUCKETS.length());
            for (String bucketProperty : BUCKET_PROPERTIES) {
                String suffix = "_" + bucketProperty.toUpperCase(Locale.ROOT).replace('-', '_');
                if (rest.endsWith(suffix) && rest.length() > suffix.length()) {
                    return Optional.of(new BucketProperty(rest.substring(0, rest.length() - suffix.length())
                            .toLowerCase(Locale.ROOT).replace('_', '-'), bucketProperty));
                }
            }
        }
        return Optional.empty();
    }

    /** Whether the configuration has a value for the property; one it cannot read counts (read reports it). */
    private boolean answers(String property) {
        try {
            return lookup.apply(property).filter(value -> !value.isBlank()).isPresent();
        } catch (RuntimeException e) {
            return true;
        }
    }

    private String backend() {
        String text = value("backend").orElse(StoreProviderRegistry.MEMORY);
        String name = text.strip().toLowerCase(Locale.ROOT);
        Optional<String> module = stores.missingModule(name);
        if (module.isPresent()) {
            problems.add(PREFIX + "backend: '" + text + "' is a store of its own module, which is not on the class "
                    + "path: add the dependency " + module.get() + " (the version of limiter-impl, or none with "
                    + "limiter-bom imported) to the application; docs/stores.md#the-stores-as-modules");
            return StoreProviderRegistry.MEMORY;
        }
        List<String> storeNames = stores.names();
        if (!storeNames.contains(name)) {
            problems.add(PREFIX + "backend: '" + text + "' is not a store found on the class path; use one of "
                    + String.join(", ", storeNames)
                    + " (a store's jar registers its provider: docs/writing-a-store.md)");
            return StoreProviderRegistry.MEMORY;
        }
        return name;
    }

    private String pathPrefix(String prefix) {
        if (!prefix.startsWith("/")) {
            problems.add(PREFIX + "api.path-prefixes: '" + prefix + "' must start with '/'");
        }
        return prefix.endsWith("/") ? prefix : prefix + "/";
    }

    private boolean bool(String key, boolean defaultValue) {
        Optional<String> text = value(key);
        if (text.isEmpty()) {
            return defaultValue;
        }
        String value = text.get().strip().toLowerCase(Locale.ROOT);
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        problems.add(PREFIX + key + ": '" + text.get() + "' is not a boolean; use true or false");
        return defaultValue;
    }

    private int integer(String key, int defaultValue, Range<Long> range) {
        Optional<String> text = value(key);
        if (text.isEmpty()) {
            return defaultValue;
        }
        Long value = parseLong(PREFIX + key, text.get(), range);
        return value == null ? defaultValue : value.intValue();
    }

    private Duration duration(String key, Duration defaultValue, Range<Duration> range) {
        Optional<String> text = value(key);
        if (text.isEmpty()) {
            return defaultValue;
        }
        Duration value = parseDuration(PREFIX + key, text.get(), "PT30S");
        if (value != null && !range.contains(value)) {
            problems.add(PREFIX + key + ": '" + text.get() + "' is out of range " + range);
            return defaultValue;
        }
        return value == null ? defaultValue : value;
    }

    /** The duration, or null after adding a problem. */
    private Duration parseDuration(String property, String text, String example) {
        try {
            return Duration.parse(text.strip());
        } catch (DateTimeParseException e) {
            problems.add(property + ": '" + text + "' is not an ISO-8601 duration such as " + example);
            return null;
        }
    }

    private List<String> list(String key, String defaultValue) {
        return Arrays.stream(value(key).orElse(defaultValue).split(","))
                .map(String::strip)
                .filter(item -> !item.isEmpty())
                .toList();
    }

    private Long parseLong(String property, String text, Range<Long> range) {
        long value;
        try {
            value = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            problems.add(property + ": '" + text + "' is not a whole number " + range);
            return null;
        }
        if (!range.contains(value)) {
            problems.add(property + ": " + value + " is out of range " + range);
            return null;
        }
        return value;
    }

    /**
     * {@code <limit>/<window>, ...}: each a whole number {@link #LIMIT} and an ISO-8601 duration {@link #WINDOW};
     * null after adding a problem naming the property and the item.
     */
    private List<Bucket.Limit> parseLimits(String property, String text) {
        List<Bucket.Limit> limits = new ArrayList<>();
        int before = problems.size();
        for (String item : text.split(",")) {
            String trimmed = item.strip();
            int slash = trimmed.indexOf('/');
            if (slash < 0) {
                problems.add(property + ": '" + trimmed + "' is not <limit>/<window>; write for example "
                        + "10/PT1S, 1000/PT1H");
                continue;
            }
            Long limit = parseLong(property, trimmed.substring(0, slash), LIMIT);
            Duration window = parseWindow(property, trimmed.substring(slash + 1));
            if (limit != null && window != null) {
                limits.add(new Bucket.Limit(limit, window));
            }
        }
        if (problems.size() > before) {
            return null;
        }
        if (limits.isEmpty() || limits.size() > Bucket.MAX_WINDOWS) {
            problems.add(property + ": '" + text + "' must list from 1 to " + Bucket.MAX_WINDOWS
                    + " windows as <limit>/<window>, such as 10/PT1S, 1000/PT1H");
            return null;
        }
        return limits;
    }

    private Duration parseWindow(String property, String text) {
        Duration window = parseDuration(property, text, "PT1M or PT15M");
        if (window != null && (window.getNano() != 0 || !WINDOW.contains(window))) {
            problems.add(property + ": '" + text + "' must be a whole number of seconds " + WINDOW);
            return null;
        }
        return window;
    }

    private Optional<String> value(String key) {
        return lookup(PREFIX + key);
    }

    private Optional<String> lookup(String property) {
        try {
            return lookup.apply(property).filter(value -> !value.isBlank());
        } catch (RuntimeException e) {
            // e.g. an expression such as ${RATE_LIMIT_KEY_SECRET} whose variable is not set
            problems.add(property + ": cannot be read: " + e.getMessage());
            return Optional.empty();
        }
    }
}
