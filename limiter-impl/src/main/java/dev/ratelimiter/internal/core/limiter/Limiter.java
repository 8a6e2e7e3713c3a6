package dev.ratelimiter.internal.core.limiter;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;

import java.util.List;

/**
 * A limiter of the decision chain (docs/architecture.md#the-outage-chain): the in-memory store, a shared store's
 * limiter and each decorator around it (outage policy, refusals kept in memory, circuit breaker), and the limiter
 * that is off. It decides on keys already normalized and hashed by the decision path, counts as
 * {@link dev.ratelimiter.RateLimiter} says (every window of the bucket admits the cost, or nothing is counted), and
 * gives counts back for the buckets that count failures only (docs/guide.md#counting-failures-only).
 *
 * <p>Internal, and no {@link dev.ratelimiter.RateLimiter}: the one public limiter, the injectable bean
 * ({@code internal.cdi.beans.DecidingRateLimiter}), takes the application's raw key and decides through the whole
 * path (hashing, metrics, events, shadow mode), which ends in this chain. {@code LayerRulesTest} keeps the chain off
 * the public interface.
 *
 * <p>Implementations are thread-safe and never throw for a backend failure: a store that failed, timed out or sits
 * behind an open breaker answers {@link Verdict.Outcome#UNAVAILABLE}, which the outage policy turns into its
 * bucket's answer.
 */
public interface Limiter {

    /**
     * Counts one attempt of cost 1 and decides it: {@link #consume(Bucket, String, long) consume(bucket, key, 1)}.
     *
     * @param bucket the bucket, never {@code null}
     * @param key    the key within the bucket, hashed, never {@code null}
     * @return the verdict; {@link Verdict.Outcome#UNAVAILABLE} when the backend failed or its deadline passed
     */
    default Verdict consume(Bucket bucket, String key) {
        return consume(bucket, key, 1);
    }

    /**
     * Decides one call of the given cost in every window of the bucket at once, and counts it in each if every one
     * admits it; a refused call is counted in none. Cost 0 checks without counting.
     *
     * @param bucket the bucket, never {@code null}
     * @param key    the key within the bucket, hashed, never {@code null}
     * @param cost   attempts the call counts, from 0 to {@link Bucket#largestCost()}; the decision path checks it
     *               (a larger cost is simply refused)
     * @return the verdict; {@link Verdict.Outcome#UNAVAILABLE} when the backend failed or its deadline passed.
     *         Never throws for a backend failure.
     */
    Verdict consume(Bucket bucket, String key, long cost);

    /**
     * Clears the key's counter, so its next attempt finds every window empty (a token bucket full). Idempotent, safe
     * for a key never consumed, and never throws, also while the backend is down (the reset is then lost and the
     * window simply runs out).
     *
     * @param bucket the bucket, never {@code null}
     * @param key    the key within the bucket, hashed, never {@code null}
     */
    void reset(Bucket bucket, String key);

    /**
     * Gives the refunds' costs back, in one store round trip where there is a store. The rule is the store SPI's
     * ({@link dev.ratelimiter.spi.RateLimitStore#refund}): each refund's cost leaves the windows its call was counted
     * in, never a later one. A decorator passes them on to the limiter it wraps.
     *
     * @param refunds one or more refunds, keys hashed as this limiter counts them
     * @return false if they were dropped (the store could not be reached, or its breaker is open): nothing is sent
     *         again, since a retry could land in a later window; true if they reached every limiter that counts.
     *         Never throws for a store failure.
     */
    boolean refund(List<StoreRefund> refunds);

    /**
     * Takes a permit of a concurrency bucket (docs/guide.md#concurrency-limits), by the store SPI's rule
     * ({@link dev.ratelimiter.spi.RateLimitStore#take}): allowed while fewer than the bucket's limit are held for the
     * key. A decorator passes it on.
     *
     * @param permit the permit, its key hashed; {@link StorePermit#CHECK} counts without taking
     * @return ALLOWED (taken) or DENIED, with the permits left; {@link Verdict.Outcome#UNAVAILABLE} when the backend
     *         failed. Never throws for a backend failure.
     * @throws UnsupportedOperationException from a limiter that keeps no permits (a test's)
     */
    default Verdict take(StorePermit permit) {
        throw new UnsupportedOperationException(getClass().getName() + " keeps no permits");
    }

    /**
     * Gives permits back, in one store round trip where there is a store; idempotent
     * ({@link dev.ratelimiter.spi.RateLimitStore#giveBack}). A decorator passes them on to every limiter that may
     * hold them (the store and the fallback).
     *
     * @param permits one or more permits this process took
     * @return false if they could not reach the store (each then ends with its lease); never throws for a store
     *         failure
     */
    default boolean giveBack(List<StorePermit> permits) {
        throw new UnsupportedOperationException(getClass().getName() + " keeps no permits");
    }

    /**
     * Renews the leases of permits still in flight ({@link dev.ratelimiter.spi.RateLimitStore#renew}).
     *
     * @param permits one or more permits this process holds
     * @return for each permit, in order, whether it is still held; {@code null} when the store could not be asked
     *         (unknown: asked again at the next renewal). Never throws for a store failure.
     */
    default boolean[] renew(List<StorePermit> permits) {
        throw new UnsupportedOperationException(getClass().getName() + " keeps no permits");
    }
}
