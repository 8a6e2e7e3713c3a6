package dev.ratelimiter.cdi;

import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimiterUnavailableException;
import dev.ratelimiter.Verdict;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.enterprise.inject.Intercepted;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Counts each call of a {@link RateLimited} method before it runs, and refuses it with
 * {@link RateLimitExceededException} or, for a fail-closed outage, {@link RateLimiterUnavailableException}: thrown
 * by an ordinary method, as a failed stage by one returning {@code CompletionStage}, as a failure by one returning
 * Mutiny's {@code Uni} or {@code Multi} (counted at each subscription; see {@link ResultType}).
 *
 * <p>The binding is the one the container applied to the intercepted bean (its class, superclasses, stereotypes),
 * resolved once per bean class and method by {@link RateLimitedMethods}.
 *
 * <p>At {@code PLATFORM_BEFORE + 100}, so it runs before {@code @Transactional} (PLATFORM_BEFORE + 200) and
 * MicroProfile Fault Tolerance: a denied call opens no transaction and is not retried.
 */
@RateLimited(bucket = "")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class RateLimitedInterceptor {

    @Inject
    @Intercepted
    Bean<?> intercepted;

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

    @Inject
    EventLoopOffload offload;

    @Inject
    UnfilteredRequests unfiltered;

    @AroundInvoke
    Object limit(InvocationContext context) throws Exception {
        if (!configuration.settings().enabled()) {
            return context.proceed();
        }
        Method method = context.getMethod();
        Class<?> beanClass = intercepted.getBeanClass();
        RateLimitedMethods.Binding binding = methods.binding(beanClass, method);
        RateLimitedMethod rateLimited = binding.method();
        // Read now, on the calling thread: a Uni may be subscribed where the request context is not active.
        CharSequence key = rateLimited.keyParameter() >= 0
                ? (CharSequence) context.getParameters()[rateLimited.keyParameter()]
                : requestKey(beanClass, method);
        Consumer<Verdict> recorder = recorder(binding);
        Supplier<RateLimitException> decision = () -> {
            Verdict verdict = decider.decide(binding.bucket(), key, rateLimited.normalization(), rateLimited.cost());
            recorder.accept(verdict);
            return refusal(binding, verdict);
        };
        switch (rateLimited.result()) {
            case UNI, MULTI:
                return MutinyResults.defer(rateLimited.result(), decision::get, decider.blocking(), offload,
                        context::proceed);
            case COMPLETION_STAGE: {
                eventLoops.check(method, decider.blocking());
                RateLimitException refusal = decision.get();
                return refusal == null ? context.proceed() : CompletableFuture.failedFuture(refusal);
            }
            default: {
                eventLoops.check(method, decider.blocking());
                RateLimitException refusal = decision.get();
                if (refusal != null) {
                    throw refusal;
                }
                return context.proceed();
            }
        }
    }

    private static RateLimitException refusal(RateLimitedMethods.Binding binding, Verdict verdict) {
        return switch (verdict.outcome()) {
            case DENIED -> new RateLimitExceededException(binding.bucket(), verdict);
            case UNAVAILABLE -> new RateLimiterUnavailableException(binding.bucket(), verdict);
            default -> null;
        };
    }

    private String requestKey(Class<?> beanClass, Method method) {
        Optional<String> key;
        try {
            key = identity.principalName().or(identity::clientAddress);
        } catch (ContextNotActiveException e) {
            throw noKey(beanClass, method);
        }
        return key.orElseThrow(() -> {
            unfiltered.report(beanClass, method);
            return new IllegalStateException(UnfilteredRequests.message(beanClass, method));
        });
    }

    /** Records into this request's limits, if there is a request; holds the instance, not the proxy. */
    private Consumer<Verdict> recorder(RateLimitedMethods.Binding binding) {
        try {
            return applied.recorder(binding.bucket());
        } catch (ContextNotActiveException e) {
            return verdict -> {
                // no HTTP request, so no response to put headers on
            };
        }
    }

    private static IllegalStateException noKey(Class<?> beanClass, Method method) {
        return new IllegalStateException(RateLimitedMethod.describe(beanClass, method) + " is @RateLimited "
                + "without a @RateLimitKey parameter and was called outside an HTTP request handled by the rate "
                + "limiter's filter, so there is no principal or client address to key it by");
    }
}
