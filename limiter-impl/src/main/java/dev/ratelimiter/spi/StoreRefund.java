package dev.ratelimiter.spi;

import dev.ratelimiter.Bucket;

import java.util.Objects;

/**
 * A count given back to a store, or taken by it: an allowed call of a bucket that counts failures only succeeded, so
 * its cost leaves the windows it was counted in (docs/guide.md#counting-failures-only; {@link RateLimitStore#refund});
 * or a call's cost was settled after it ran (docs/stores.md#settlements), and the difference from
 * what it reserved is given back (a positive {@code cost}) or debited (a negative one) in those same windows.
 *
 * <p>A store names a key's windows only by their ends, on its own clock, so a refund names the windows it was
 * counted in the same way: for each window, the milliseconds until the window the call was counted in ends, as the
 * library reckons it now from the store's answer and the time since it asked. The library's reckoning errs late by
 * at most the round trip of the decision and early by at most the refund's, and the windows of one key end at least
 * a window's length apart, so a store credits the window whose end lies within half a window's length of it
 * ({@link RateLimitStore#refund} says exactly).
 *
 * @param bucket      the bucket the call was counted in
 * @param key         the hashed key, as in the {@link StoreItem} that counted it
 * @param cost        the cost to give back, 1 or more (the call's cost, or what it reserved beyond its settled
 *                    cost); or, below 0, the cost to debit (what the settled cost exceeds the reservation by), on a
 *                    store whose provider declares {@link RateLimitStoreProvider#debits()}, at most
 *                    {@link Bucket#MAX_LIMIT}; never 0
 * @param endsInMillis per window, in {@link Bucket#limits()} order, the milliseconds until the window the call was
 *                    counted in ends, or 0 where it has ended (that window is left alone); ignored for a token
 *                    bucket, which has no windows to end. Not copied: the library never changes it after handing it
 *                    over, and a store must not change it.
 */
public record StoreRefund(Bucket bucket, String key, long cost, long[] endsInMillis) {

    /**
     * @throws NullPointerException     if {@code bucket}, {@code key} or {@code endsInMillis} is {@code null}
     * @throws IllegalArgumentException if {@code cost} is 0 or below −{@link Bucket#MAX_LIMIT}, if {@code endsInMillis} does not have one number
     *                                  per window of the bucket, or if one is negative
     */
    public StoreRefund {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(endsInMillis, "endsInMillis");
        if (cost == 0) {
            throw new IllegalArgumentException("cost 0: a refund gives back a counted cost, or debits one");
        }
        if (cost < -Bucket.MAX_LIMIT) {
            throw new IllegalArgumentException("cost " + cost + " debits more than the largest limit, "
                    + Bucket.MAX_LIMIT);
        }
        if (endsInMillis.length != bucket.limits().size()) {
            throw new IllegalArgumentException("endsInMillis has " + endsInMillis.length + " numbers for "
                    + bucket.limits().size() + " windows of bucket '" + bucket.name() + "'");
        }
        for (long millis : endsInMillis) {
            if (millis < 0) {
                throw new IllegalArgumentException("endsInMillis holds " + millis + ", below 0");
            }
        }
    }

    /** Whether this refund takes its cost rather than giving it back: a settlement above the call's reservation. */
    public boolean debit() {
        return cost < 0;
    }

    /**
     * Whether the window a refund names is the one a store holds: it ends {@code storeEndsInMillis} from now on the
     * store's clock, and the refund says {@code endsInMillis} (docs/guide.md#counting-failures-only). A store may
     * use it, or the same comparison in its own language.
     *
     * @param endsInMillis      the refund's number for the window, 0 for one that has ended
     * @param storeEndsInMillis the milliseconds until the store's window of the key ends (0 or less: none is open)
     * @param windowMillis      the window's length in milliseconds
     * @return true iff both are positive and {@code storeEndsInMillis < endsInMillis + windowMillis / 2}
     */
    public static boolean sameWindow(long endsInMillis, long storeEndsInMillis, long windowMillis) {
        return endsInMillis > 0 && storeEndsInMillis > 0 && storeEndsInMillis < endsInMillis + windowMillis / 2;
    }
}
