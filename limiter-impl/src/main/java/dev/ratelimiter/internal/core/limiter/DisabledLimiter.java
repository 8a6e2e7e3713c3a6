package dev.ratelimiter.internal.core.limiter;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;

import java.util.List;

/**
 * The kill switch ({@code ratelimiter.enabled=false}): every attempt is allowed with the full limit remaining,
 * and nothing is counted or stored.
 */
public final class DisabledLimiter implements Limiter {

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        return Verdicts.untouched(bucket);
    }

    @Override
    public void reset(Bucket bucket, String key) {
        // nothing is counted, so nothing to clear
    }

    @Override
    public boolean refund(List<StoreRefund> refunds) {
        return true; // nothing was counted, so nothing to give back
    }

    @Override
    public Verdict take(StorePermit permit) {
        return Verdicts.untouched(permit.bucket()); // no permit is held, so none is given back
    }

    @Override
    public boolean giveBack(List<StorePermit> permits) {
        return true;
    }

    @Override
    public boolean[] renew(List<StorePermit> permits) {
        boolean[] held = new boolean[permits.size()];
        java.util.Arrays.fill(held, true);
        return held;
    }
}
