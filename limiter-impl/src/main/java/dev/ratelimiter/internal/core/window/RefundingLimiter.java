package dev.ratelimiter.internal.core.window;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.spi.StoreRefund;

import java.util.List;

/**
 * A limiter that gives counts back: the in-memory one and every limiter of the outage chain, for the buckets that
 * count failures only (docs/guide.md#counting-failures-only). The rule is the store SPI's
 * ({@link dev.ratelimiter.spi.RateLimitStore#refund}): each refund's cost leaves the windows its call was counted
 * in, never a later one.
 */
public interface RefundingLimiter extends RateLimiter {

    /**
     * Gives the refunds' costs back, in one store round trip where there is a store; never throws for a store
     * failure.
     *
     * @param refunds one or more refunds, keys hashed as this limiter counts them
     * @return false if they were dropped (the store could not be reached, or its breaker is open): nothing is sent
     *         again, since a retry could land in a later window; true if they reached every limiter that counts
     */
    boolean refund(List<StoreRefund> refunds);

    /**
     * Gives the refunds back through {@code limiter}, the way a decorator of the chain passes them on to the limiter
     * it wraps.
     *
     * @param limiter the limiter that counted the calls
     * @param refunds one or more refunds, keys hashed
     * @return {@link #refund}'s answer; false for a limiter that gives nothing back (it is no refunding limiter)
     */
    static boolean refund(RateLimiter limiter, List<StoreRefund> refunds) {
        return limiter instanceof RefundingLimiter refunding && refunding.refund(refunds);
    }
}
