package dev.ratelimiter.internal.core.settings;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a plan resolver's answer is kept per bucket and key (docs/plans.md#the-plan-cache).
 *
 * @param ttl        {@code ratelimiter.plans.cache-ttl}: how long an answer is reused; {@link Duration#ZERO} asks
 *                   the resolver on every call. Not negative.
 * @param maxEntries {@code ratelimiter.plans.cache-max-entries}: answers kept at most, at least 1; past it the
 *                   oldest are dropped first
 */
public record PlanCacheSettings(Duration ttl, int maxEntries) {

    /** The defaults: a minute, ten thousand answers. */
    public static final PlanCacheSettings DEFAULT = new PlanCacheSettings(Duration.ofMinutes(1), 10_000);

    public PlanCacheSettings {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || maxEntries < 1) {
            throw new IllegalArgumentException("ttl must not be negative and maxEntries must be at least 1");
        }
    }
}
