package dev.ratelimiter.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimiterUnavailableException;
import dev.ratelimiter.Verdict;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import java.lang.reflect.Method;

/**
 * Counts each call of a {@link RateLimited} method before it runs, and refuses it by throwing
 * {@link RateLimitExceededException} or, for a fail-closed outage, {@link RateLimiterUnavailableException}.
 *
 * <p>At {@code PLATFORM_BEFORE + 100}, so it runs before {@code @Transactional} (PLATFORM_BEFORE + 200) and
 * MicroProfile Fault Tolerance: a denied call opens no transaction and is not retried.
 */
@RateLimited(bucket = "")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class RateLimitedInterceptor {

    @Inject
    RateLimitedMethods methods;

    @Inject
    RateLimitDecider decider;

    @Inject
    RequestIdentity identity;

    @Inject
    AppliedLimits applied;

    @Inject
    LimiterConfiguration configuration;

    @Inject
    EventLoopWarnings eventLoops;

    @AroundInvoke
    Object limit(InvocationContext context) throws Exception {
        if (!configuration.settings().enabled()) {
            return context.proceed();
        }
        Method method = context.getMethod();
        RateLimitedMethods.Binding binding = methods.binding(method);
        RateLimitedMethod rateLimited = binding.method();
        CharSequence key = rateLimited.keyParameter() >= 0
                ? (CharSequence) context.getParameters()[rateLimited.keyParameter()]
                : requestKey(method);
        eventLoops.check(method, decider.blocking());
        Verdict verdict = decider.decide(binding.bucket(), key, rateLimited.normalization());
        record(binding, verdict);
        switch (verdict.outcome()) {
            case DENIED:
                throw new RateLimitExceededException(binding.bucket(), verdict);
            case UNAVAILABLE:
                throw new RateLimiterUnavailableException(binding.bucket(), verdict);
            default:
                return context.proceed();
        }
    }

    private String requestKey(Method method) {
        try {
            return identity.principalName().or(identity::clientAddress).orElseThrow(() -> noKey(method));
        } catch (ContextNotActiveException e) {
            throw noKey(method);
        }
    }

    private void record(RateLimitedMethods.Binding binding, Verdict verdict) {
        try {
            applied.record(binding.bucket(), verdict);
        } catch (ContextNotActiveException e) {
            // no HTTP request, so no response to put headers on
        }
    }

    private static IllegalStateException noKey(Method method) {
        return new IllegalStateException(RateLimitedMethod.describe(method) + " is @RateLimited without a "
                + "@RateLimitKey parameter and was called outside an HTTP request handled by the rate limiter's "
                + "filter, so there is no principal or client address to key it by");
    }
}
