package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.BlockLimiter;
import dev.ratelimiter.spi.StorePermit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The decision path's part for concurrency buckets (docs/guide.md#concurrency-limits): a permit taken through the
 * chain for a call, kept in the call's counted calls to be given back when it ends ({@link Settlements}) and renewed
 * meanwhile ({@code chain.PermitRenewal}); and the permits of a call refused by a later bucket, given back at once.
 */
final class PermitTakes {

    private PermitTakes() {
    }

    /**
     * Takes a permit for a call, or only counts the permits held for cost 0.
     *
     * @param counted where an allowed permit goes; {@code null} is refused for cost 1, since nothing would give it
     *                back
     * @throws IllegalArgumentException for cost 1 without {@code counted}, naming the bucket
     */
    static Verdict take(DecisionPath path, Bucket bucket, String key, long cost, long decidedAt,
                        List<CountedCall> counted) {
        if (cost > 0 && counted == null) {
            throw noPermitsHere(bucket);
        }
        StorePermit permit = new StorePermit(bucket, key, cost == 0 ? StorePermit.CHECK : newId());
        Verdict verdict = path.assembly().limiter().take(permit);
        if (!permit.isCheck() && verdict.isAllowed() && path.assembly().limiter() instanceof BlockLimiter chain
                && chain.counted(bucket, verdict)) {
            counted.add(new CountedCall(bucket, key, 1, verdict, decidedAt, permit.id()));
            path.assembly().permits().held(permit);
        }
        return verdict;
    }

    /**
     * Refuses a permit taken where nothing would give it back (no {@code counted}), before anything is counted.
     *
     * @throws IllegalArgumentException for a concurrency bucket at cost 1 without {@code counted}
     */
    static void checkKept(Bucket bucket, long cost, List<CountedCall> counted) {
        if (bucket.isConcurrency() && cost > 0 && counted == null) {
            throw noPermitsHere(bucket);
        }
    }

    /**
     * The refusal of a permit taken where nothing would give it back: the {@code RateLimiter} bean's and the
     * {@code RateLimits} facade's decisions.
     */
    static IllegalArgumentException noPermitsHere(Bucket bucket) {
        return new IllegalArgumentException("bucket '" + bucket.name() + "' limits concurrency: its permits are "
                + "taken by @RateLimited methods, which give them back when they end; RateLimiter and "
                + "RateLimits.consume decide rate buckets (RateLimits.usage reads a concurrency bucket's permits)");
    }

    /**
     * Gives back the permits taken for a call that a later bucket refused: those in {@code counted} from index
     * {@code from} on, removed from it.
     */
    static void refused(DecisionPath path, List<CountedCall> counted, int from) {
        if (counted == null || counted.size() <= from) {
            return;
        }
        List<StorePermit> permits = new ArrayList<>(1);
        for (int i = counted.size() - 1; i >= from; i--) {
            if (counted.get(i).isPermit()) {
                permits.add(counted.remove(i).storePermit());
            }
        }
        giveBack(path, permits);
    }

    /** Gives permits back through the chain and stops renewing them; never throws. */
    static boolean giveBack(DecisionPath path, List<StorePermit> permits) {
        if (permits.isEmpty()) {
            return true;
        }
        path.assembly().permits().released(permits);
        try {
            return path.assembly().limiter().giveBack(permits);
        } catch (RuntimeException e) {
            return false; // the chain does not throw for a store failure; each permit ends with its lease
        }
    }

    /** A permit's id: random, never {@link StorePermit#CHECK}; two replicas' ids meet with odds of 2^-64 a pair. */
    private static long newId() {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == StorePermit.CHECK);
        return id;
    }
}
