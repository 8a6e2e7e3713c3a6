package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.verdict.Refunds;
import dev.ratelimiter.internal.core.verdict.Reservations;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Corrects counted calls once they have run, in one store round trip where the store allows it: a failures-only
 * bucket's successful call given back (docs/guide.md#counting-failures-only), a call's cost settled after it ran
 * (docs/guide.md#costs-settled-after-the-call). Each goes to the windows it was counted in, never to a later one, as
 * a refund of the difference ({@link Refunds#settlement}): a negative one is a debit. A concurrency bucket's permit
 * kept for the call is given back, in a round trip of its own ({@link PermitTakes#giveBack}). A token bucket's
 * reservation whose caller will not wait is given back too ({@link #unreserved}).
 */
final class Settlements {

    private final DecisionSource source;

    Settlements(DecisionSource source) {
        this.source = source;
    }

    /**
     * Sends the settlements whose cost differs from what the call reserved; each is counted in the metrics (a
     * refund as given or dropped, a settlement with its settled cost). Never throws, and never sends one again.
     *
     * @param settlements the calls and their actual costs; may be empty
     * @return whether they reached the store, or the fallback deciding in an outage (false: dropped, and counted so)
     */
    boolean settle(List<Settlement> settlements) {
        if (settlements.isEmpty()) {
            return true;
        }
        DecisionPath path = source.path();
        long now = source.clock().millis();
        List<StoreRefund> refunds = new ArrayList<>(settlements.size());
        List<StorePermit> permits = new ArrayList<>(0);
        for (Settlement settlement : settlements) {
            CountedCall call = settlement.call();
            if (call.isPermit()) {
                permits.add(call.storePermit());
                continue;
            }
            Refunds.settlement(call.bucket(), call.key(), call.cost(), settlement.settled(), call.verdict(),
                    now - call.decidedAtMillis()).ifPresent(refunds::add);
        }
        PermitTakes.giveBack(path, permits);
        boolean given = true;
        if (!refunds.isEmpty()) {
            try {
                given = path.assembly().limiter().refund(refunds);
            } catch (RuntimeException e) {
                given = false; // the chain does not throw for a store failure; anything else must not fail the call
            }
        }
        for (Settlement settlement : settlements) {
            if (settlement.call().isPermit()) {
                continue;
            }
            if (settlement.refund()) {
                path.metrics().refund(settlement.call().bucket(), given);
            } else {
                path.metrics().settlement(settlement.call().bucket(), settlement.settled(), given);
            }
        }
        return given; // a permit's give-back dropped ends with its lease; the counts' corrections stand on their own
    }

    /**
     * A reservation its caller will not wait for (docs/guide.md#waiting-instead-of-refusing): given back in a round
     * trip of its own, and refused, its wait as {@code resetAfter}; any other verdict as it is. A check (cost 0)
     * reserves nothing, and is refused, with nothing to give back, when a call of cost 1 would have to wait: a
     * check is refused exactly when such a call would be.
     *
     * @param bucket  a bucket that reserves ({@link Bucket#reserves()})
     * @param key     the hashed key it was counted under
     * @param cost    the call's cost
     * @param verdict the chain's verdict
     * @return the verdict, or a refusal in place of a reservation
     */
    static Verdict unreserved(DecisionPath path, Bucket bucket, String key, long cost, Verdict verdict) {
        if (cost == 0) {
            Duration wait = Reservations.checkWaitOf(bucket, verdict);
            return wait.isZero() ? verdict : Verdict.denied(bucket.limit(), wait);
        }
        Duration wait = Reservations.waitOf(bucket, verdict);
        if (wait.isZero()) {
            return verdict;
        }
        try {
            path.assembly().limiter().refund(List.of(Refunds.refund(bucket, key, cost, verdict, 0)));
        } catch (RuntimeException e) {
            // dropped: the tokens stay taken for no call, which refuses later calls, never admits one too many
        }
        return Verdict.denied(bucket.limit(), wait);
    }
}
