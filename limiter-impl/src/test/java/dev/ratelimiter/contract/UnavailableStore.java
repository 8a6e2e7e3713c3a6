package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;

import java.time.Duration;

/** A shared store that is down: every attempt is {@code UNAVAILABLE}, so the outage policy decides each one. */
public final class UnavailableStore implements RateLimiter {

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        return Verdict.unavailable(bucket.limit(), Duration.ZERO);
    }

    @Override
    public void reset(Bucket bucket, String key) {
        // nothing is stored
    }
}
