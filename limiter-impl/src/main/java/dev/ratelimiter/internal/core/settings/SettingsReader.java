package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.key.TrustedProxies;
import dev.ratelimiter.internal.core.settings.PropertyTable.Property;
import dev.ratelimiter.spi.ConfigurationException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads {@link LimiterSettings} from configuration properties: every value is parsed here, once, and every
 * problem is collected into one {@link ConfigurationException} whose lines name the property.
 *
 * <p>Buckets ({@link BucketsReader}) are discovered from property names
 * {@code ratelimiter.buckets.<name>.<property>} ({@link PropertyTable#BUCKET_PROPERTIES}),
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
 * <p>A bucket's plans ({@link PlansReader}; docs/plans.md) are {@code ratelimiter.buckets.<name>.plans=free,pro} and
 * each plan's {@code ratelimiter.buckets.<name>.plans.<plan>.limit} (or {@code limits}, and {@code burst} for a token
 * bucket), environment form {@code RATELIMITER_BUCKETS_<NAME>_PLANS_<PLAN>_LIMIT}: a plan changes limits only, and a
 * plan's property for a plan the bucket does not declare is a problem, never a bucket of its own.
 *
 * <p>Every number and duration has a range (docs/reference.md shows each); a value outside it
 * is a problem naming the property and the range. The ranges keep every sum and product the limiter makes from
 * them (window ends, deadlines, pool sizes, header values) far from overflow.
 */
public final class SettingsReader {

    private final List<String> propertyNames;
    private final List<String> problems = new ArrayList<>();
    private final PropertyValues values;
    private final StoreProviderRegistry stores;

    /**
     * @param lookup        the value of a property, empty if unset (MicroProfile Config's
     *                      {@code getOptionalValue(name, String.class)}, which also finds the environment form)
     * @param propertyNames every property name the configuration knows, to discover buckets
     * @param stores        the store providers found, whose names {@code ratelimiter.backend} accepts
     */
    private SettingsReader(Function<String, Optional<String>> lookup, Iterable<String> propertyNames,
                           StoreProviderRegistry stores) {
        this.values = new PropertyValues(lookup, problems);
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

    /**
     * What a reading found: the settings, and the problems that {@link #read} would have thrown.
     *
     * @param settings the settings read; a bucket with a problem is left out, any other invalid value is its
     *                 default
     * @param problems every invalid or missing value, each naming its property; empty when all are valid
     */
    public record Reading(LimiterSettings settings, List<String> problems) {

        public Reading {
            problems = List.copyOf(problems);
        }
    }

    /**
     * Reads the settings again while the application runs (docs/live-limits.md): the same checks as at startup,
     * but nothing thrown, so each bucket's problems can keep that bucket's settings as they were.
     *
     * @param lookup        a property's value, empty if unset; blank values count as unset
     * @param propertyNames every known property name, to discover the configured buckets
     * @param stores        the store providers found
     * @return the settings and their problems
     */
    public static Reading reread(Function<String, Optional<String>> lookup, Iterable<String> propertyNames,
                                 StoreProviderRegistry stores) {
        SettingsReader reader = new SettingsReader(lookup, propertyNames, stores);
        LimiterSettings settings = reader.readAll();
        return new Reading(settings, reader.problems);
    }

    private LimiterSettings read() {
        LimiterSettings settings = readAll();
        if (!problems.isEmpty()) {
            throw new ConfigurationException(problems);
        }
        return settings;
    }

    private LimiterSettings readAll() {
        boolean enabled = bool(PropertyTable.ENABLED);
        String backend = backend();
        BucketsReader bucketsReader = new BucketsReader(propertyNames, values, problems);
        Map<String, Bucket> buckets = bucketsReader.buckets();
        Set<String> named = bucketsReader.names();
        Map<String, BucketPlans> plans = new PlansReader(propertyNames, values, problems).plans(buckets, named);
        PlanCacheSettings planCache = new PlanCacheSettings(duration(PropertyTable.PLANS_CACHE_TTL),
                integer(PropertyTable.PLANS_CACHE_MAX_ENTRIES));
        for (String required : List.of(LimiterSettings.API_AUTHENTICATED, LimiterSettings.API_ANONYMOUS)) {
            if (!named.contains(required)) {
                problems.add(PropertyTable.BUCKETS + required + ".limit and .window: the global filter's bucket is not "
                        + "configured (the library's own microprofile-config.properties sets them; was it removed?)");
            }
        }
        boolean globalLimit = bool(PropertyTable.API_ENABLED);
        List<String> prefixes = list(PropertyTable.API_PATH_PREFIXES).stream().map(this::pathPrefix).toList();
        TrustedProxies trustedProxies = TrustedProxies.NONE;
        try {
            trustedProxies = TrustedProxies.parse(list(PropertyTable.TRUSTED_PROXIES));
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        int ipv6PrefixLength = integer(PropertyTable.IPV6_PREFIX_LENGTH);
        Optional<String> keySecret = text(PropertyTable.KEY_SECRET);
        boolean headersOnSuccess = bool(PropertyTable.HEADERS_ON_SUCCESS);
        Set<HeaderFields> headerFields = headerFields();
        int maxKeys = integer(PropertyTable.MEMORY_MAX_KEYS);
        Duration sweepInterval = duration(PropertyTable.MEMORY_SWEEP_INTERVAL);
        boolean downWhenDegraded = bool(PropertyTable.HEALTH_DOWN_WHEN_DEGRADED);
        BreakerSettings breaker = breaker();
        DenyCacheSettings denyCache = new DenyCacheSettings(duration(PropertyTable.DENY_CACHE_MAX_AGE), maxKeys);
        Optional<String> keyResolver = text(PropertyTable.API_KEY_RESOLVER).map(String::strip);
        MetricsSystem metricsSystem = metricsSystem();
        ReloadSettings reload = new ReloadSettings(duration(PropertyTable.RELOAD_INTERVAL),
                text(PropertyTable.RELOAD_FILE).map(String::strip));
        return new LimiterSettings(enabled, backend, buckets, globalLimit, prefixes, trustedProxies, ipv6PrefixLength,
                keySecret, headersOnSuccess, headerFields, maxKeys, sweepInterval, downWhenDegraded, breaker,
                denyCache, keyResolver, bucketsReader.shadowBuckets(), bucketsReader.lists(), bucketsReader.blocks(), bucketsReader.counting(),
                bucketsReader.quotaLeases.found(), bucketsReader.waits.found(), metricsSystem,
                plans, planCache, reload, bool(PropertyTable.OPENAPI_ENABLED),
                integer(PropertyTable.NEAR_LIMIT_PERCENT));
    }

    /** {@link PropertyTable#HEADERS_FIELDS}: each item a family's spelling, at least one; draft-10 alone if wrong. */
    private Set<HeaderFields> headerFields() {
        Property property = PropertyTable.HEADERS_FIELDS;
        List<String> items = list(property);
        Set<HeaderFields> fields = EnumSet.noneOf(HeaderFields.class);
        for (String item : items) {
            Optional<HeaderFields> parsed = HeaderFields.parse(item);
            if (parsed.isEmpty()) {
                problems.add(property.fullName() + ": '" + item + "' is not a family of header fields; use draft-10, "
                        + "draft-6 or x-ratelimit, comma-separated");
            }
            parsed.ifPresent(fields::add);
        }
        if (items.isEmpty()) {
            problems.add(property.fullName() + ": names no header fields; name at least one of draft-10, draft-6 or "
                    + "x-ratelimit (to leave them off allowed responses, set "
                    + PropertyTable.HEADERS_ON_SUCCESS.fullName() + "=false)");
        }
        return fields.isEmpty() ? EnumSet.of(HeaderFields.DRAFT_10) : fields;
    }

    private MetricsSystem metricsSystem() {
        String text = text(PropertyTable.METRICS_SYSTEM).orElseThrow();
        Optional<MetricsSystem> system = MetricsSystem.parse(text);
        if (system.isEmpty()) {
            problems.add(PropertyTable.METRICS_SYSTEM.fullName() + ": '" + text + "' is not a metrics system; use "
                    + "auto, microprofile, micrometer, opentelemetry or none");
        }
        return system.orElse(MetricsSystem.AUTO);
    }

    private BreakerSettings breaker() {
        Property initialBackoff = PropertyTable.BREAKER_INITIAL_BACKOFF;
        Property maxBackoff = PropertyTable.BREAKER_MAX_BACKOFF;
        Duration initial = duration(initialBackoff);
        // Unset, the longest back-off grows to a longer initial one, so setting one property alone never fails.
        Duration tableMax = Duration.parse(maxBackoff.defaultValue().orElseThrow());
        Duration maxDefault = initial.compareTo(tableMax) > 0 ? initial : tableMax;
        Duration max = values.duration(maxBackoff.fullName(), maxDefault, maxBackoff.durations());
        if (max.compareTo(initial) < 0) {
            problems.add(maxBackoff.fullName() + ": " + max + " is below " + initialBackoff.fullName() + " "
                    + initial);
            max = initial;
        }
        return new BreakerSettings(integer(PropertyTable.BREAKER_FAILURE_THRESHOLD), initial, max,
                integer(PropertyTable.BREAKER_SUCCESS_THRESHOLD));
    }

    private String backend() {
        String text = text(PropertyTable.BACKEND).orElseThrow();
        String name = text.strip().toLowerCase(Locale.ROOT);
        Optional<String> module = stores.missingModule(name);
        if (module.isPresent()) {
            problems.add(PropertyTable.BACKEND.fullName() + ": '" + text + "' is a store of its own module, which "
                    + "is not on the class path: add the dependency " + module.get() + " (the version of limiter-impl, "
                    + "or none with limiter-bom imported) to the application; docs/stores.md#the-stores-as-modules");
            return StoreProviderRegistry.MEMORY;
        }
        List<String> storeNames = stores.names();
        if (!storeNames.contains(name)) {
            problems.add(PropertyTable.BACKEND.fullName() + ": '" + text + "' is not a store found on the class "
                    + "path; use one of " + String.join(", ", storeNames)
                    + " (a store's jar registers its provider: docs/writing-a-store.md)");
            return StoreProviderRegistry.MEMORY;
        }
        return name;
    }

    private String pathPrefix(String prefix) {
        if (!prefix.startsWith("/")) {
            problems.add(PropertyTable.API_PATH_PREFIXES.fullName() + ": '" + prefix + "' must start with '/'");
        }
        return prefix.endsWith("/") ? prefix : prefix + "/";
    }

    /** A property of the table that is no bucket's, read with its default. */
    private boolean bool(Property property) {
        return values.bool(property.fullName(), Boolean.parseBoolean(property.defaultValue().orElseThrow()));
    }

    private int integer(Property property) {
        return (int) values.wholeNumber(property.fullName(), Long.parseLong(property.defaultValue().orElseThrow()),
                property.wholeNumbers());
    }

    private Duration duration(Property property) {
        return values.duration(property.fullName(), Duration.parse(property.defaultValue().orElseThrow()),
                property.durations());
    }

    /** The value, else the table's default (empty for none). */
    private Optional<String> text(Property property) {
        return values.text(property.fullName()).or(property::defaultValue);
    }

    private List<String> list(Property property) {
        return Arrays.stream(text(property).orElse("").split(","))
                .map(String::strip)
                .filter(item -> !item.isEmpty())
                .toList();
    }

}
