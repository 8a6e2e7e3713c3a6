package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.spi.StorePermit;

import java.util.List;

/**
 * A decorator of the chain that has nothing to do with a concurrency bucket's permits (docs/guide.md#concurrency-limits):
 * its {@link #take}, {@link #giveBack} and {@link #renew} go to the limiter it wraps, unchanged. The blocks, the
 * refusals kept in memory and the quota leases are such decorators: a permit is never blocked, kept refused or leased.
 */
interface PermitsPassThrough extends Limiter {

    /** {@return the limiter this one wraps, which takes, gives back and renews the permits} */
    Limiter permitsTo();

    @Override
    default Verdict take(StorePermit permit) {
        return permitsTo().take(permit);
    }

    @Override
    default boolean giveBack(List<StorePermit> permits) {
        return permitsTo().giveBack(permits);
    }

    @Override
    default boolean[] renew(List<StorePermit> permits) {
        return permitsTo().renew(permits);
    }
}
