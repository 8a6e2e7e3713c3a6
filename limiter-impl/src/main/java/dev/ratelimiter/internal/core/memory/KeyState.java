package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

/**
 * One key's state in a {@link KeyTable}, made by {@link KeyTable#state} (or, for a one-window fixed window, by the
 * limiter itself) for its bucket's algorithm and windows. It is decided, carried and given back through the methods
 * below, which answer null or false when the state was retired meanwhile: the caller then looks the key up again.
 *
 * <p>A state is retired (never to count again) before it leaves the table, so an attempt can never be counted in a
 * state that has left the map: the sweep retires a state whose windows have ended, then removes it; a reset, a state
 * kept under other windows and a carry that starts afresh do the same.
 */
abstract class KeyState {

    /**
     * Whether this state was kept under the bucket's algorithm and windows, not under others of its name. Limits are
     * not compared: a plan (docs/plans.md) changes them for some keys, and a key keeps its state when its plan
     * changes, decided from its next call under the call's bucket's limits.
     */
    abstract boolean matches(Bucket bucket);

    /** Decides a call at {@code now} (epoch milliseconds); null if retired. */
    abstract Verdict decide(Bucket bucket, long cost, long now);

    /**
     * Takes a shared store's verdict for {@code bucket} as this key's state ({@link MemoryRateLimiter#carry}); false
     * if retired.
     */
    abstract boolean carry(Bucket bucket, Verdict verdict, long now);

    /**
     * Gives {@code cost} back to the windows named by {@code endsIn} ({@link MemoryRateLimiter#refund}), as
     * {@code bucket} counted it; false if retired.
     */
    abstract boolean refund(Bucket bucket, long cost, long[] endsIn, long now);

    /** Retires the state; false if it was retired already. */
    abstract boolean retire();

    /** Retires the state if every window of it has ended at {@code now}; false otherwise. */
    abstract boolean retireIfEnded(long now);
}
