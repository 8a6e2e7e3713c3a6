package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;

/**
 * The {@link RateLimits} bean. A decision made while a request context is active is recorded in that request's
 * {@link AppliedLimits} (held by its {@link RequestIdentity}), so the response of a JAX-RS request carries its
 * bucket in the RateLimit headers as the interceptor's would; outside one (a scheduled job, a message listener)
 * nothing is recorded.
 */
@ApplicationScoped
public class RateLimitsFacade implements RateLimits {

    @Inject
    RateLimitDecider decider;

    @Inject
    RequestIdentity request;

    @Override
    public Verdict consume(String bucketName, CharSequence key, KeyNormalization normalization, long cost) {
        return consume(decider.bucket(bucketName), key, normalization, cost);
    }

    /**
     * Decides through the decider and records the verdict for the response's headers: the path of the facade and
     * of the injectable {@code RateLimiter} bean ({@link DecidingRateLimiter}).
     *
     * @param bucket        the bucket
     * @param key           the raw key, normalized and hashed before it is counted
     * @param normalization how the key is normalized
     * @param cost          attempts the call counts, from 0 to the bucket's largest cost
     * @return the verdict, as {@link RateLimitDecider#decide(Bucket, CharSequence, KeyNormalization, long)}
     */
    Verdict consume(Bucket bucket, CharSequence key, KeyNormalization normalization, long cost) {
        Verdict verdict = decider.decide(bucket, key, normalization, cost);
        try {
            request.applied().record(bucket, verdict);
        } catch (ContextNotActiveException e) {
            // no request, so no response to put headers on
        }
        return verdict;
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
