package dev.ratelimiter.internal.core.settings;

import java.time.Duration;
import java.util.Objects;

/**
 * How long this process answers a key the shared store refused without asking the store again
 * (docs/stores.md#refusals-kept-in-memory; docs/architecture.md#the-outage-chain).
 *
 * @param maxAge  {@code ratelimiter.deny-cache.max-age}: the longest a refusal is answered from memory, whatever
 *                the window has left; it bounds how long a reset made on another replica goes unseen here.
 *                {@link Duration#ZERO} turns the cache off. Not negative.
 * @param maxKeys {@code ratelimiter.memory.max-keys}: refusals kept per bucket, at least 1; past it new refusals
 *                are not kept (nothing is evicted early)
 */
public record DenyCacheSettings(Duration maxAge, int maxKeys) {

    /** No refusal is answered from memory. */
    public static final DenyCacheSettings OFF = new DenyCacheSettings(Duration.ZERO, 1);

    public DenyCacheSettings {
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxAge.isNegative() || maxKeys < 1) {
            throw new IllegalArgumentException("maxAge must not be negative and maxKeys must be at least 1");
        }
    }

    /** {@return whether refusals are answered from memory at all} */
    public boolean enabled() {
        return !maxAge.isZero();
    }
}
