package dev.ratelimiter.internal.cdi.beans;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.call.AppliedLimits;
import dev.ratelimiter.internal.cdi.call.CallContext;
import dev.ratelimiter.internal.cdi.call.PlanResolvers;
import dev.ratelimiter.internal.cdi.call.RequestAttributes;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.cdi.runtime.SettingsReloader;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.plan.Planner;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;

import java.util.List;
import java.util.Optional;

/**
 * The {@link RateLimits} bean. A decision made while a request context is active is recorded in that request's
 * {@link AppliedLimits} (held by its {@link RequestIdentity}), so the response of a JAX-RS request carries its
 * bucket in the RateLimit headers as the interceptor's would; outside one (a scheduled job, a message listener)
 * nothing is recorded. A bucket whose {@code plan-resolver} property names a resolver is decided under the key's
 * plan (docs/plans.md).
 */
@ApplicationScoped
public class RateLimitsFacade implements RateLimits {

    @Inject
    RateLimitDecider decider;

    @Inject
    RequestIdentity request;

    @Inject
    PlanResolvers plans;

    @Inject
    SettingsReloader reloader;

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
    Verdict consume(Bucket configured, CharSequence key, KeyNormalization normalization, long cost) {
        Bucket bucket = planned(configured, key, normalization, cost);
        Verdict verdict = decider.decide(bucket, key, normalization, cost);
        try {
            request.applied().record(bucket, verdict);
        } catch (ContextNotActiveException e) {
            // no request, so no response to put headers on
        }
        return verdict;
    }

    /**
     * The bucket under the key's plan, where its {@code plan-resolver} property names a resolver (docs/plans.md):
     * the resolver reads the request's principal and address when a request is active, no method nor arguments.
     */
    private Bucket planned(Bucket bucket, CharSequence key, KeyNormalization normalization, long cost) {
        Optional<Planner> planner = plans.planner(bucket, null);
        if (planner.isEmpty()) {
            return bucket;
        }
        RawKey counted = new RawKey(key, normalization, KeyNamespace.APPLICATION);
        Bucket cached = plans.cached(planner.get(), counted, cost);
        return cached != null ? cached : plans.resolve(planner.get(), counted, cost, context(bucket.name()));
    }

    private CallContext context(String bucket) {
        try {
            return new CallContext(bucket, Optional.empty(), List.of(), request.principalName(),
                    request.clientAddress(), request.attributes());
        } catch (ContextNotActiveException e) {
            return new CallContext(bucket, Optional.empty(), List.of(), Optional.empty(), Optional.empty(),
                    RequestAttributes.NONE);
        }
    }

    /** Reads through the decider under the key's plan, recording nothing (see {@link RateLimits#usage}). */
    @Override
    public Verdict usage(String bucketName, CharSequence key, KeyNormalization normalization) {
        Bucket bucket = planned(decider.bucket(bucketName), key, normalization, 0);
        return decider.usage(bucket, key, normalization);
    }

    @Override
    public void reset(String bucketName, CharSequence key, KeyNormalization normalization) {
        decider.reset(decider.bucket(bucketName), key, normalization);
    }

    @Override
    public Reload reload() {
        return reloader.reload();
    }

    @Override
    public Bucket bucket(String bucketName) {
        return decider.bucket(bucketName);
    }
}
