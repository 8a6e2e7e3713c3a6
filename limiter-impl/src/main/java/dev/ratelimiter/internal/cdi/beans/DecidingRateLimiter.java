package dev.ratelimiter.internal.cdi.beans;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The injectable {@link RateLimiter} bean: decides on the key as the application has it, through the same path as
 * the {@link dev.ratelimiter.RateLimits} facade (normalization {@link KeyNormalization#NONE}, hashing, metrics,
 * the {@code RateLimitDenied} event, shadow mode, and the RateLimit headers of the current request), so no
 * injectable path counts a key in clear (docs/guide.md#deciding-in-code).
 */
@ApplicationScoped
public class DecidingRateLimiter implements RateLimiter {

    @Inject
    RateLimitsFacade facade;

    @Inject
    RateLimitDecider decider;

    /**
     * @param bucket the bucket, configured or not
     * @param key    the raw key, hashed before it is counted
     * @param cost   attempts the call counts, from 0 to the bucket's largest cost
     * @return the verdict after the bucket's outage policy and shadow mode
     * @throws IllegalArgumentException if the cost is negative or above the bucket's largest cost
     */
    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        return facade.consume(bucket, key, KeyNormalization.NONE, cost);
    }

    /**
     * @param bucket the bucket
     * @param key    the raw key, hashed as {@link #consume} hashes it
     */
    @Override
    public void reset(Bucket bucket, String key) {
        decider.reset(bucket, key, KeyNormalization.NONE);
    }
}
