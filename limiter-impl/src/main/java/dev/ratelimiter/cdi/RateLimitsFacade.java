package dev.ratelimiter.cdi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The {@link RateLimits} bean. */
@ApplicationScoped
public class RateLimitsFacade implements RateLimits {

    @Inject
    RateLimitDecider decider;

    @Override
    public Verdict consume(String bucketName, CharSequence key, KeyNormalization normalization, long cost) {
        return decider.decide(decider.bucket(bucketName), key, normalization, cost);
    }

    @Override
    public void reset(String bucketName, CharSequence key, KeyNormalization normalization) {
        decider.reset(decider.bucket(bucketName), key, normalization);
    }

    @Override
    public Bucket bucket(String bucketName) {
        return decider.bucket(bucketName);
    }
}
