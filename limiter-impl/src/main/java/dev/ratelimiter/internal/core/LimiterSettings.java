package dev.ratelimiter.internal.core;

import dev.ratelimiter.Bucket;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The limiter's configuration, read and validated once at startup by {@link SettingsReader}. Property names are
 * those of docs/reference.md.
 *
 * @param enabled               {@code ratelimiter.enabled}: false allows everything and counts nothing
 * @param backend               {@code ratelimiter.backend}: {@code memory} or a store provider's name
 * @param buckets               every configured bucket by name ({@code ratelimiter.buckets.<name>.*})
 * @param globalLimit           {@code ratelimiter.api.enabled}: whether the global filter limits {@code /api/}
 * @param pathPrefixes          {@code ratelimiter.api.path-prefixes}: paths after the context root that the
 *                              global filter limits, each starting and ending with {@code /}
 * @param trustedProxies        {@code ratelimiter.trusted-proxies}: CIDRs or addresses, parsed
 * @param ipv6PrefixLength      {@code ratelimiter.ipv6-prefix-length}: IPv6 clients are keyed by this prefix,
 *                              1..128
 * @param keySecret             {@code ratelimiter.key-secret}: the HMAC key, if any
 * @param headersOnSuccess      {@code ratelimiter.headers.on-success}: RateLimit headers on allowed responses
 * @param memoryMaxKeys         {@code ratelimiter.memory.max-keys}: live counters per bucket, 1 to 10<sup>8</sup>
 * @param memorySweepInterval   {@code ratelimiter.memory.sweep-interval}: delay between sweeps, 1 s to 1 day
 * @param healthDownWhenDegraded {@code ratelimiter.health.down-when-degraded}
 * @param breaker               {@code ratelimiter.breaker.*}: the circuit breaker in front of a shared store
 * @param denyCache             {@code ratelimiter.deny-cache.max-age} and {@code ratelimiter.memory.max-keys}: a
 *                              shared store's refusals answered from memory
 * @param keyResolver           {@code ratelimiter.api.key-resolver}: the global filter's key resolver, a
 *                              {@code @Named} name or a bean class's name, unchecked here (the CDI layer finds it)
 * @param shadowBuckets         the names of the buckets whose {@code ratelimiter.buckets.<name>.mode} is
 *                              {@code shadow}: decided and counted, never refused (docs/guide.md#shadow-mode)
 * @param metricsSystem         {@code ratelimiter.metrics.system}: which metrics library records, or
 *                              {@link MetricsSystem#AUTO} for the first the server offers
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
        int memoryMaxKeys,
        Duration memorySweepInterval,
        boolean healthDownWhenDegraded,
        BreakerSettings breaker,
        DenyCacheSettings denyCache,
        Optional<String> keyResolver,
        Set<String> shadowBuckets,
        MetricsSystem metricsSystem) {

    /** The bucket the global filter uses for authenticated requests. */
    public static final String API_AUTHENTICATED = "api-authenticated";
    /** The bucket the global filter uses for anonymous requests. */
    public static final String API_ANONYMOUS = "api-anonymous";

    public LimiterSettings {
        buckets = Map.copyOf(buckets);
        pathPrefixes = List.copyOf(pathPrefixes);
        shadowBuckets = Collections.unmodifiableSortedSet(new TreeSet<>(shadowBuckets));
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
