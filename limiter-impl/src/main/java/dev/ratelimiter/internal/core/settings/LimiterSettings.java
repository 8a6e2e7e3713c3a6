package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.key.KeyLists;
import dev.ratelimiter.internal.core.key.TrustedProxies;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The limiter's configuration, read and validated once at startup by {@link SettingsReader}. Each component is the
 * value of the {@link PropertyTable} row named beside it, where its name, default and range are (and
 * docs/reference.md#properties, checked against that table).
 *
 * @param enabled                {@link PropertyTable#ENABLED}: false allows everything and counts nothing
 * @param backend                {@link PropertyTable#BACKEND}: {@code memory} or a store provider's name
 * @param buckets                every configured bucket by name (the rows {@code buckets.<name>.*})
 * @param globalLimit            {@link PropertyTable#API_ENABLED}: whether the global filter limits its paths
 * @param pathPrefixes           {@link PropertyTable#API_PATH_PREFIXES}: paths after the context root that the
 *                               global filter limits, each starting and ending with {@code /}
 * @param trustedProxies         {@link PropertyTable#TRUSTED_PROXIES}, parsed
 * @param ipv6PrefixLength       {@link PropertyTable#IPV6_PREFIX_LENGTH}: IPv6 clients are keyed by this prefix
 * @param keySecret              {@link PropertyTable#KEY_SECRET}: the HMAC key, if any
 * @param headersOnSuccess       {@link PropertyTable#HEADERS_ON_SUCCESS}: RateLimit headers on allowed responses
 * @param headerFields           {@link PropertyTable#HEADERS_FIELDS}: which families of rate limit header fields a
 *                               limited response carries, at least one
 * @param memoryMaxKeys          {@link PropertyTable#MEMORY_MAX_KEYS}: live counters per bucket
 * @param memorySweepInterval    {@link PropertyTable#MEMORY_SWEEP_INTERVAL}: delay between sweeps
 * @param healthDownWhenDegraded {@link PropertyTable#HEALTH_DOWN_WHEN_DEGRADED}
 * @param breaker                the {@code breaker.*} rows: the circuit breaker in front of a shared store
 * @param denyCache              {@link PropertyTable#DENY_CACHE_MAX_AGE} and {@link PropertyTable#MEMORY_MAX_KEYS}:
 *                               a shared store's refusals answered from memory
 * @param keyResolver            {@link PropertyTable#API_KEY_RESOLVER}: the global filter's key resolver, a
 *                               {@code @Named} name or a bean class's name, unchecked here (the CDI layer finds it)
 * @param shadowBuckets          the names of the buckets whose {@link PropertyTable#BUCKET_MODE} is {@code shadow}:
 *                               decided and counted, never refused (docs/guide.md#shadow-mode)
 * @param lists                  each bucket's {@link PropertyTable#BUCKET_ALLOW} and {@link PropertyTable#BUCKET_DENY},
 *                               by name, where it has either (docs/guide.md#allow-and-deny-lists)
 * @param blocks                 each bucket's {@link PropertyTable#BUCKET_BLOCK} and the block's growth, by name,
 *                               where it has a block (docs/guide.md#blocks-after-a-refusal)
 * @param counting               each bucket's {@link PropertyTable#BUCKET_COUNT} and what a failure is, by name,
 *                               where not {@link FailureCounting#ALL} (docs/guide.md#counting-failures-only)
 * @param quotaLeases            each bucket's {@link PropertyTable#BUCKET_QUOTA_LEASE_PERCENT} and
 *                               {@link PropertyTable#BUCKET_QUOTA_LEASE_IDLE}, by name, where it leases quota
 *                               (docs/guide.md#quota-leases-for-hot-keys); read at startup only
 * @param maxWaiting             each bucket's {@link PropertyTable#BUCKET_MAX_WAITING}, by name, where its calls wait
 *                               ({@link Bucket#maxWait()}, docs/guide.md#waiting-instead-of-refusing); read at
 *                               startup only
 * @param metricsSystem          {@link PropertyTable#METRICS_SYSTEM}: which metrics library records, or
 *                               {@link MetricsSystem#AUTO} for the first the server offers
 * @param plans                  each bucket's plans and plan resolver, by name, where it has either
 *                               (docs/plans.md)
 * @param planCache              the {@code plans.*} rows: how long a plan resolver's answer is kept
 * @param reload                 the {@code reload.*} rows: when the buckets' settings are read again
 *                               (docs/live-limits.md)
 * @param openApi                whether the limits are added to the application's OpenAPI document
 *                               ({@code openapi.enabled}, docs/openapi.md)
 * @param nearLimitPercent       {@link PropertyTable#NEAR_LIMIT_PERCENT}: the share of a window's capacity, in
 *                               percent, below which an allowed decision is near the limit
 *                               (docs/guide.md#near-the-limit); 0: off
 */
public record LimiterSettings(
        boolean enabled,
        String backend,
        Map<String, Bucket> buckets,
        boolean globalLimit,
        List<String> pathPrefixes,
        TrustedProxies trustedProxies,
        int ipv6PrefixLength,
        Optional<String> keySecret,
        boolean headersOnSuccess,
        Set<HeaderFields> headerFields,
        int memoryMaxKeys,
        Duration memorySweepInterval,
        boolean healthDownWhenDegraded,
        BreakerSettings breaker,
        DenyCacheSettings denyCache,
        Optional<String> keyResolver,
        Set<String> shadowBuckets,
        Map<String, KeyLists> lists,
        Map<String, BlockSettings> blocks,
        Map<String, FailureCounting> counting,
        Map<String, QuotaLeaseSettings> quotaLeases,
        Map<String, Integer> maxWaiting,
        MetricsSystem metricsSystem,
        Map<String, BucketPlans> plans,
        PlanCacheSettings planCache,
        ReloadSettings reload,
        boolean openApi,
        int nearLimitPercent) {

    /** The bucket the global filter uses for authenticated requests. */
    public static final String API_AUTHENTICATED = "api-authenticated";
    /** The bucket the global filter uses for anonymous requests. */
    public static final String API_ANONYMOUS = "api-anonymous";

    public LimiterSettings {
        buckets = Map.copyOf(buckets);
        pathPrefixes = List.copyOf(pathPrefixes);
        shadowBuckets = Collections.unmodifiableSortedSet(new TreeSet<>(shadowBuckets));
        lists = Map.copyOf(lists);
        blocks = Map.copyOf(blocks);
        counting = Map.copyOf(counting);
        quotaLeases = Map.copyOf(quotaLeases);
        maxWaiting = Map.copyOf(maxWaiting);
        plans = Map.copyOf(plans);
        headerFields = Collections.unmodifiableSet(EnumSet.copyOf(headerFields));
    }

    /**
     * These settings with other buckets' settings, the rest unchanged: what a reload applies (only buckets' settings
     * change while the application runs; docs/live-limits.md).
     *
     * @param buckets       every bucket by name
     * @param shadowBuckets the buckets in shadow mode
     * @param lists         each bucket's allow and deny lists, where it has either
     * @param blocks        each bucket's block after a refusal, where it has one
     * @param plans         each bucket's plans and plan resolver, where it has either
     * @return the settings
     */
    public LimiterSettings withBuckets(Map<String, Bucket> buckets, Set<String> shadowBuckets,
                                       Map<String, KeyLists> lists, Map<String, BlockSettings> blocks,
                                       Map<String, BucketPlans> plans) {
        return new LimiterSettings(enabled, backend, buckets, globalLimit, pathPrefixes, trustedProxies,
                ipv6PrefixLength, keySecret, headersOnSuccess, headerFields, memoryMaxKeys, memorySweepInterval,
                healthDownWhenDegraded, breaker, denyCache, keyResolver, shadowBuckets, lists, blocks, counting,
                quotaLeases, maxWaiting, metricsSystem, plans, planCache, reload, openApi, nearLimitPercent);
    }

    /** The bucket's plans and plan resolver from configuration, {@link BucketPlans#NONE} when it has neither. */
    public BucketPlans plans(String bucket) {
        return plans.getOrDefault(bucket, BucketPlans.NONE);
    }

    /** The bucket's allow and deny lists, {@link KeyLists#NONE} when it has neither. */
    public KeyLists lists(String bucket) {
        return lists.getOrDefault(bucket, KeyLists.NONE);
    }

    /** The bucket's block after a refusal, if it has one. */
    public Optional<BlockSettings> block(String bucket) {
        return Optional.ofNullable(blocks.get(bucket));
    }

    /** Which of the bucket's calls stay counted, and what a failure is ({@link FailureCounting#ALL} by default). */
    public FailureCounting counting(Bucket bucket) {
        return counting.getOrDefault(bucket.name(), FailureCounting.ALL);
    }

    /** The bucket of that name, if configured. */
    public Optional<Bucket> bucket(String name) {
        return Optional.ofNullable(buckets.get(name));
    }

    /** Whether the bucket is in shadow mode ({@code ratelimiter.buckets.<name>.mode=shadow}). */
    public boolean shadow(Bucket bucket) {
        return shadowBuckets.contains(bucket.name());
    }
}
