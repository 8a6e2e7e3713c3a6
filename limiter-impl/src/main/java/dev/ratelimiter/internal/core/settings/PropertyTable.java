package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The library's own configuration properties in one table (docs/reference.md#properties): each one's name, type,
 * default and range. {@link SettingsReader} reads every property through its row (name, default and range come from
 * here, nowhere else), {@link UnknownProperties} knows exactly these names, and {@code PropertyTableTest} fails when
 * the reference's table says otherwise (a property missing on either side, another default or range).
 *
 * <p>A bucket's properties are rows too, named with the placeholder {@code <name>}
 * ({@code ratelimiter.buckets.<name>.limit}), and so are a plan's, with {@code <plan>} as well
 * ({@code ratelimiter.buckets.<name>.plans.<plan>.limit}). A store's own subtree ({@code ratelimiter.valkey.*}) is not here: its
 * provider lists it ({@code RateLimitStoreProvider.propertyNames()}), and each store module checks that list against
 * the reference.
 */
public final class PropertyTable {

    /** The prefix of every property of the library. */
    public static final String PREFIX = "ratelimiter.";
    /** The prefix of a bucket's properties, before the bucket's name. */
    public static final String BUCKETS = PREFIX + "buckets.";
    private static final String BUCKET = "buckets.<name>.";
    /** A plan's properties' prefix, after {@code ratelimiter.}, with the placeholders {@code <name>} and {@code <plan>}. */
    private static final String PLAN = BUCKET + "plans.<plan>.";

    /** What a property's value is. */
    public enum Type {
        /** {@code true} or {@code false}, any case. */
        BOOLEAN,
        /** A whole number within the row's range. */
        WHOLE_NUMBER,
        /** An ISO-8601 duration ({@code PT30S}) within the row's range. */
        DURATION,
        /** Text, read as written (stripped). */
        TEXT,
        /** Comma-separated items, each stripped, empty ones dropped. */
        LIST
    }

    /**
     * One property.
     *
     * @param name         relative to {@code ratelimiter.}; a bucket's with the placeholder {@code <name>}
     * @param type         what its value is
     * @param defaultValue the value when unset, as the reference writes it; empty for none
     * @param range        the accepted values of a {@link Type#WHOLE_NUMBER} ({@code Range<Long>}) or a
     *                     {@link Type#DURATION} ({@code Range<Duration>}); null for the other types
     */
    public record Property(String name, Type type, Optional<String> defaultValue, Range<?> range) {

        /** {@return the full name, {@code ratelimiter.<name>}} */
        public String fullName() {
            return PREFIX + name;
        }

        /** {@return whether this is a bucket's property, {@code buckets.<name>.*}} */
        public boolean ofBucket() {
            return name.startsWith(BUCKET);
        }

        /** {@return whether this is a plan's property, {@code buckets.<name>.plans.<plan>.*}} */
        public boolean ofPlan() {
            return name.startsWith(PLAN);
        }

        /**
         * {@return a bucket's or a plan's property's last segment ({@code limit}); the name for any other}
         */
        public String leaf() {
            return ofPlan() ? name.substring(PLAN.length()) : ofBucket() ? name.substring(BUCKET.length()) : name;
        }

        @SuppressWarnings("unchecked")
        Range<Long> wholeNumbers() {
            if (type != Type.WHOLE_NUMBER) {
                throw new IllegalStateException(name + " is not a whole number");
            }
            return (Range<Long>) range;
        }

        @SuppressWarnings("unchecked")
        Range<Duration> durations() {
            if (type != Type.DURATION) {
                throw new IllegalStateException(name + " is not a duration");
            }
            return (Range<Duration>) range;
        }
    }

    /**
     * Live counters per bucket in memory: a cap on memory (about 200 bytes a counter), 10^8 at most; also the
     * refusals kept in memory per bucket.
     */
    public static final Property MEMORY_MAX_KEYS = wholeNumber("memory.max-keys", 100_000, 1, 100_000_000);
    /** Delays between sweeps: a second to a day. */
    public static final Property MEMORY_SWEEP_INTERVAL = duration("memory.sweep-interval", Duration.ofSeconds(30),
            Duration.ofSeconds(1), Duration.ofDays(1));
    /**
     * How long a shared store's refusal may be answered from memory: 0 (off) to a minute, since it is also how long
     * a reset on another replica may go unseen.
     */
    public static final Property DENY_CACHE_MAX_AGE = duration("deny-cache.max-age", Duration.ofSeconds(1),
            Duration.ZERO, Duration.ofMinutes(1));
    /** The circuit breaker's thresholds: consecutive calls, so a thousand is already lax. */
    public static final Property BREAKER_FAILURE_THRESHOLD = wholeNumber("breaker.failure-threshold", 3, 1, 1_000);
    /** The circuit breaker's thresholds: consecutive calls, so a thousand is already lax. */
    public static final Property BREAKER_SUCCESS_THRESHOLD = wholeNumber("breaker.success-threshold", 3, 1, 1_000);
    /** The circuit breaker's back-offs between probes: a millisecond to an hour. */
    public static final Property BREAKER_INITIAL_BACKOFF = duration("breaker.initial-backoff", Duration.ofSeconds(1),
            Duration.ofMillis(1), Duration.ofHours(1));
    /** Unset, it is raised to a longer {@link #BREAKER_INITIAL_BACKOFF} ({@link SettingsReader}). */
    public static final Property BREAKER_MAX_BACKOFF = duration("breaker.max-backoff", Duration.ofSeconds(30),
            Duration.ofMillis(1), Duration.ofHours(1));

    /** The kill switch: {@code false} allows every attempt and counts nothing. */
    public static final Property ENABLED = bool("enabled", true);
    /** The store: {@code memory} or a store provider's name. */
    public static final Property BACKEND = text("backend", StoreProviderRegistry.MEMORY);
    /** Whether the global filter limits its paths. */
    public static final Property API_ENABLED = bool("api.enabled", true);
    /** The paths after the context root that the global filter limits. */
    public static final Property API_PATH_PREFIXES = list("api.path-prefixes", "/api/");
    /** The global filter's key resolver, by {@code @Named} name or bean class name. */
    public static final Property API_KEY_RESOLVER = text("api.key-resolver", null);
    /** Whether the limits are added to the application's OpenAPI document (docs/openapi.md). */
    public static final Property OPENAPI_ENABLED = bool("openapi.enabled", true);
    /** CIDRs or addresses whose {@code X-Forwarded-For} is believed. */
    public static final Property TRUSTED_PROXIES = list("trusted-proxies", null);
    /** The prefix, in bits, IPv6 clients are keyed by. */
    public static final Property IPV6_PREFIX_LENGTH = wholeNumber("ipv6-prefix-length", 64, 1, 128);
    /** The HMAC key of the key hash, the same on every replica. */
    public static final Property KEY_SECRET = text("key-secret", null);
    /** RateLimit headers on allowed responses too. */
    public static final Property HEADERS_ON_SUCCESS = bool("headers.on-success", true);
    /** Which families of rate limit header fields a limited response carries ({@link HeaderFields}). */
    public static final Property HEADERS_FIELDS = list("headers.fields", "draft-10");
    /** Readiness DOWN instead of UP while a shared store is degraded. */
    public static final Property HEALTH_DOWN_WHEN_DEGRADED = bool("health.down-when-degraded", false);
    /** The share of a window's capacity below which a decision counts as near the limit; 0 turns it off. */
    public static final Property NEAR_LIMIT_PERCENT = wholeNumber("near-limit.percent", 20, 0, 100);
    /** The one metrics library that records, or {@code auto}. */
    public static final Property METRICS_SYSTEM = text("metrics.system", "auto");

    /**
     * How often the buckets' settings are read again while the application runs (docs/live-limits.md): 0 (off, the
     * default: most sources cannot change) to a day.
     */
    public static final Property RELOAD_INTERVAL = duration("reload.interval", Duration.ZERO, Duration.ZERO,
            Duration.ofDays(1));
    /**
     * A properties file of {@code ratelimiter.*} properties, read at startup and at each reload, above every other
     * source: the source that can change while the application runs.
     */
    public static final Property RELOAD_FILE = text("reload.file", null);

    /** Bucket limits ({@link Bucket#MAX_LIMIT}). */
    public static final Property BUCKET_LIMIT = wholeNumber(BUCKET + "limit", null, 1, Bucket.MAX_LIMIT);
    /** Bucket windows, in whole seconds ({@link Bucket#MAX_WINDOW}). */
    public static final Property BUCKET_WINDOW = duration(BUCKET + "window", null, Duration.ofSeconds(1),
            Bucket.MAX_WINDOW);
    /** {@code <limit>/<window>, ...}, each with the ranges of {@link #BUCKET_LIMIT} and {@link #BUCKET_WINDOW}. */
    public static final Property BUCKET_LIMITS = list(BUCKET + "limits", null);
    /** What a bucket answers while its shared store fails: {@code fallback}, {@code fail-open}, {@code fail-closed}. */
    public static final Property BUCKET_ON_OUTAGE = text(BUCKET + "on-outage", "fallback");
    /** {@code enforce} (refusals enforced) or {@code shadow} (only counted). */
    public static final Property BUCKET_MODE = text(BUCKET + "mode", "enforce");
    /** How the bucket's windows count: {@code fixed-window}, {@code token-bucket} or {@code sliding-window} ({@link Algorithm}). */
    public static final Property BUCKET_ALGORITHM = text(BUCKET + "algorithm", "fixed-window");
    /** A token bucket's capacity, the shortest window's ({@link Bucket#burst()}); unset: that window's limit. */
    public static final Property BUCKET_BURST = wholeNumber(BUCKET + "burst", null, 1, Bucket.MAX_LIMIT);

    /**
     * A concurrency bucket's permits: calls in flight per key (docs/guide.md#concurrency-limits), 1 to
     * {@link Bucket#MAX_PERMITS}; set, it makes the bucket a concurrency bucket, and wins over {@code limit},
     * {@code window} and {@code limits}, as {@code limits} wins over the other two.
     */
    public static final Property BUCKET_CONCURRENCY = wholeNumber(BUCKET + "concurrency", null, 1, Bucket.MAX_PERMITS);
    /**
     * How long a concurrency bucket's permit is held without renewal: whole seconds, 1 second to
     * {@link Bucket#MAX_LEASE}. A replica that dies mid-call frees its permits within it.
     */
    public static final Property BUCKET_LEASE = duration(BUCKET + "lease", Duration.ofSeconds(30),
            Duration.ofSeconds(1), Bucket.MAX_LEASE);

    /**
     * The largest share of a key's quota one replica leases from a shared store and decides from locally, in percent of
     * the bucket's smallest capacity, 1 to 100; unset: every decision asks the store (docs/guide.md#quota-leases-for-hot-keys).
     */
    public static final Property BUCKET_QUOTA_LEASE_PERCENT = wholeNumber(BUCKET + "quota-lease-percent", null, 1, 100);
    /**
     * How long a quota lease may sit unused before the replica gives it back, and how long a lease is sized to last at
     * the key's recent rate: 100 ms to 1 minute.
     */
    public static final Property BUCKET_QUOTA_LEASE_IDLE = duration(BUCKET + "quota-lease-idle", Duration.ofSeconds(1),
            QuotaLeaseSettings.MIN_IDLE, QuotaLeaseSettings.MAX_IDLE);

    /**
     * How long a call that would be refused waits for the bucket to admit it
     * (docs/guide.md#waiting-instead-of-refusing): 1 ms to 1 minute; unset: refused at once. A call whose wait would
     * be longer is refused at once.
     */
    public static final Property BUCKET_MAX_WAIT = duration(BUCKET + "max-wait", null, Duration.ofMillis(1),
            Bucket.MAX_WAIT);
    /**
     * The most calls of the bucket that wait at once in one process, 1 to 10 000; while that many wait, the bucket's
     * next call is refused at once, without a store call.
     */
    public static final Property BUCKET_MAX_WAITING = wholeNumber(BUCKET + "max-waiting", 25, 1, 10_000);

    /** The IANA time zone of the bucket's calendar window ({@link dev.ratelimiter.CalendarWindow}). */
    public static final Property BUCKET_ZONE = text(BUCKET + "zone", "UTC");

    /** {@code all} (every call stays counted) or {@code failures} (a call that succeeded is given back). */
    public static final Property BUCKET_COUNT = text(BUCKET + "count", "all");
    /**
     * Keys, addresses and CIDR ranges the bucket counts but never refuses ({@code core.key.KeyLists},
     * docs/guide.md#allow-and-deny-lists).
     */
    public static final Property BUCKET_ALLOW = list(BUCKET + "allow", null);
    /** Keys, addresses and CIDR ranges the bucket refuses without a store call. */
    public static final Property BUCKET_DENY = list(BUCKET + "deny", null);
    /**
     * How long a key stays refused once the bucket's limits refused it: 1 second to {@link Bucket#MAX_WINDOW}; unset:
     * no block (docs/guide.md#blocks-after-a-refusal).
     */
    public static final Property BUCKET_BLOCK = duration(BUCKET + "block", null, Duration.ofSeconds(1),
            Bucket.MAX_WINDOW);
    /** The longest block: each block while earlier ones are remembered doubles, up to it; unset: the first's length. */
    public static final Property BUCKET_BLOCK_MAX = duration(BUCKET + "block-max", null, Duration.ofSeconds(1),
            Bucket.MAX_WINDOW);
    /** How long a key must stay unblocked for its blocks to be forgotten, so the next is the first's length again. */
    public static final Property BUCKET_BLOCK_FORGET_AFTER = duration(BUCKET + "block-forget-after", Duration.ofDays(1),
            Duration.ZERO, Bucket.MAX_WINDOW);
    /**
     * The longest an upstream's {@code Retry-After} holds the bucket's key (docs/guide.md#holds-from-the-upstream): a
     * call of the bucket's method that the upstream answers 429 or 503 with {@code Retry-After} holds every caller
     * of its key, on every replica, until then, at most this long; whole seconds, 1 second to 1 day. Unset: the
     * upstream's answers hold nothing.
     */
    public static final Property BUCKET_UPSTREAM_HOLD_MAX = duration(BUCKET + "upstream-hold-max", null,
            Duration.ofSeconds(1), Duration.ofDays(1));
    /** Exception types, by class name, that make a method's call a failure; unset: every exception. */
    public static final Property BUCKET_FAILURE_EXCEPTIONS = list(BUCKET + "failure-exceptions", null);
    /** HTTP statuses ({@code 401}, {@code 400-499}) that make a request of the global filter a failure. */
    public static final Property BUCKET_FAILURE_STATUSES = list(BUCKET + "failure-statuses", "400-599");

    /**
     * The bucket's plans (docs/plans.md): names matching {@code [a-z0-9][a-z0-9-]{0,63}}, {@code none} and
     * {@code explicit} reserved ({@link Bucket#NO_PLAN}, {@link Bucket#EXPLICIT_PLAN}).
     */
    public static final Property BUCKET_PLANS = list(BUCKET + "plans", null);
    /** A plan's limit, for a bucket of one window (the bucket's window); range of {@link #BUCKET_LIMIT}. */
    public static final Property PLAN_LIMIT = wholeNumber(PLAN + "limit", null, 1, Bucket.MAX_LIMIT);
    /** A plan's {@code <limit>/<window>, ...}, with exactly the bucket's windows. */
    public static final Property PLAN_LIMITS = list(PLAN + "limits", null);
    /** A plan's token-bucket capacity; unset: the plan's shortest window's limit. Range of {@link #BUCKET_BURST}. */
    public static final Property PLAN_BURST = wholeNumber(PLAN + "burst", null, 1, Bucket.MAX_LIMIT);
    /** The bucket's plan resolver, by {@code @Named} name or bean class name, as {@link #API_KEY_RESOLVER}. */
    public static final Property BUCKET_PLAN_RESOLVER = text(BUCKET + "plan-resolver", null);
    /** How long a plan resolver's answer is reused per bucket and key: 0 (ask every call) to an hour. */
    public static final Property PLANS_CACHE_TTL = duration("plans.cache-ttl", Duration.ofMinutes(1), Duration.ZERO,
            Duration.ofHours(1));
    /** Plan resolvers' answers kept at most, for every bucket together. */
    public static final Property PLANS_CACHE_MAX_ENTRIES = wholeNumber("plans.cache-max-entries", 10_000, 1,
            10_000_000);

    /** Every row, in the reference's order. */
    public static final List<Property> ALL = List.of(ENABLED, BACKEND, BUCKET_LIMIT, BUCKET_WINDOW, BUCKET_LIMITS,
            BUCKET_ON_OUTAGE, BUCKET_MODE, BUCKET_ALGORITHM, BUCKET_BURST, BUCKET_CONCURRENCY, BUCKET_LEASE,
            BUCKET_QUOTA_LEASE_PERCENT, BUCKET_QUOTA_LEASE_IDLE, BUCKET_MAX_WAIT, BUCKET_MAX_WAITING, BUCKET_ZONE,
            BUCKET_ALLOW, BUCKET_DENY, BUCKET_BLOCK, BUCKET_BLOCK_MAX, BUCKET_BLOCK_FORGET_AFTER, BUCKET_UPSTREAM_HOLD_MAX, BUCKET_COUNT,
            BUCKET_FAILURE_EXCEPTIONS, BUCKET_FAILURE_STATUSES, BUCKET_PLANS, PLAN_LIMIT, PLAN_LIMITS, PLAN_BURST, BUCKET_PLAN_RESOLVER,
            API_ENABLED, API_PATH_PREFIXES, API_KEY_RESOLVER, TRUSTED_PROXIES,
            IPV6_PREFIX_LENGTH, KEY_SECRET, HEADERS_ON_SUCCESS, HEADERS_FIELDS, MEMORY_MAX_KEYS, MEMORY_SWEEP_INTERVAL,
            DENY_CACHE_MAX_AGE, HEALTH_DOWN_WHEN_DEGRADED, METRICS_SYSTEM, NEAR_LIMIT_PERCENT, PLANS_CACHE_TTL, PLANS_CACHE_MAX_ENTRIES,
            RELOAD_INTERVAL, RELOAD_FILE, OPENAPI_ENABLED,
            BREAKER_FAILURE_THRESHOLD, BREAKER_INITIAL_BACKOFF, BREAKER_MAX_BACKOFF, BREAKER_SUCCESS_THRESHOLD);

    /**
     * A bucket's own properties' last segments ({@code limit}, {@code window}, {@code plans}, ...): the names
     * {@code ratelimiter.buckets.<name>.<property>} that discover a bucket. A plan's are not among them.
     */
    public static final List<String> BUCKET_PROPERTIES = ALL.stream()
            .filter(property -> property.ofBucket() && !property.ofPlan()).map(Property::leaf).toList();

    /** A plan's properties' last segments: {@code limit}, {@code limits}, {@code burst} (a plan changes limits only). */
    public static final List<String> PLAN_PROPERTIES = ALL.stream().filter(Property::ofPlan).map(Property::leaf)
            .toList();

    private PropertyTable() {
    }

    private static Property bool(String name, boolean defaultValue) {
        return new Property(name, Type.BOOLEAN, Optional.of(String.valueOf(defaultValue)), null);
    }

    private static Property text(String name, String defaultValue) {
        return new Property(name, Type.TEXT, Optional.ofNullable(defaultValue), null);
    }

    private static Property list(String name, String defaultValue) {
        return new Property(name, Type.LIST, Optional.ofNullable(defaultValue), null);
    }

    private static Property wholeNumber(String name, Integer defaultValue, long min, long max) {
        return new Property(name, Type.WHOLE_NUMBER, Optional.ofNullable(defaultValue).map(String::valueOf),
                Range.of(min, max));
    }

    private static Property duration(String name, Duration defaultValue, Duration min, Duration max) {
        return new Property(name, Type.DURATION, Optional.ofNullable(defaultValue).map(Duration::toString),
                Range.of(min, max));
    }
}
