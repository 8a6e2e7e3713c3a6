package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;

import java.time.Duration;
import java.util.List;

/** A shared store that is down: every attempt is {@code UNAVAILABLE}, so the outage policy decides each one. */
public final class UnavailableStore implements Limiter {

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        return Verdict.unavailable(bucket.limit(), Duration.ZERO);
    }

    @Override
    public void reset(Bucket bucket, String key) {
        // nothing is stored
    }

    @Override
    public boolean refund(List<StoreRefund> refunds) {
        return false; // the store is down: what it was given back is dropped
    }

    @Override
    public Verdict take(StorePermit permit) {
        return Verdict.unavailable(permit.bucket().limit(), Duration.ZERO);
    }

    @Override
    public boolean giveBack(List<StorePermit> permits) {
        return false; // the store is down: each permit it held ends with its lease
    }

    @Override
    public boolean[] renew(List<StorePermit> permits) {
        return null; // unknown: the store cannot be asked
    }
}
