package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.internal.cdi.call.CallContext;
import dev.ratelimiter.internal.cdi.call.KeyResolverInvoker;
import dev.ratelimiter.internal.cdi.call.RequestAttributes;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;
import jakarta.interceptor.InvocationContext;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The keys of a {@code @RateLimited} call, for {@link RateLimitedInterceptor}: each limit's key from its source (a
 * parameter, the request's principal or client address, a key resolver), else from its fallback sources in order,
 * and what a resolver reads of the call ({@link CallContext}).
 */
@ApplicationScoped
public class CallKeys {

    @Inject
    RequestIdentity identity;

    @Inject
    UnfilteredRequestWarner unfiltered;

    @Inject
    KeyResolverInvoker resolvers;

    /**
     * The key of one limit, from its source, else from its fallback sources in order.
     *
     * @return {@code null} when no source gave one
     * @throws IllegalStateException for a key from the request outside a request the filter saw
     */
    RawKey key(RateLimitedMethodCache.BoundLimit limit, RateLimitedMethod rateLimited,
                       InvocationContext context, Class<?> beanClass) {
        RawKey key = key(limit.limit().source(), limit, rateLimited, context, beanClass);
        List<RateLimitedMethod.KeySource> fallback = limit.limit().fallback();
        for (int i = 0; key == null && i < fallback.size(); i++) {
            key = key(fallback.get(i), limit, rateLimited, context, beanClass);
        }
        return key;
    }

    private RawKey key(RateLimitedMethod.KeySource source, RateLimitedMethodCache.BoundLimit limit,
                       RateLimitedMethod rateLimited, InvocationContext context, Class<?> beanClass) {
        return switch (source) {
            case PARAMETER -> new RawKey(
                    (CharSequence) context.getParameters()[rateLimited.keyParameter()], rateLimited.normalization(),
                    KeyNamespace.APPLICATION);
            case IDENTITY -> {
                requireRequest(beanClass, context.getMethod());
                RawKey principal = plain(identity.principalName(), KeyNamespace.PRINCIPAL);
                yield principal != null ? principal : plain(identity.clientAddress(), KeyNamespace.CLIENT_ADDRESS);
            }
            case PRINCIPAL -> {
                requireRequest(beanClass, context.getMethod());
                yield plain(identity.principalName(), KeyNamespace.PRINCIPAL);
            }
            case CLIENT_ADDRESS -> {
                requireRequest(beanClass, context.getMethod());
                yield plain(identity.clientAddress(), KeyNamespace.CLIENT_ADDRESS);
            }
            case RESOLVER -> resolvers.resolve(limit.resolver(), callContext(limit, context)).orElse(null);
        };
    }

    /** A key the library derives from the request, in its source's namespace; {@code null} for none. */
    private static RawKey plain(Optional<String> key, KeyNamespace namespace) {
        return key.map(value -> new RawKey(value, KeyNormalization.NONE, namespace)).orElse(null);
    }

    /**
     * Fails unless the call runs in an HTTP request the global filter saw (it records the client address of every
     * request): otherwise there is no principal or client address to key by.
     */
    private void requireRequest(Class<?> beanClass, Method method) {
        boolean seen;
        try {
            seen = identity.clientAddress().isPresent();
        } catch (ContextNotActiveException e) {
            throw noKey(beanClass, method);
        }
        if (!seen) {
            unfiltered.report(beanClass, method);
            throw new IllegalStateException(UnfilteredRequestWarner.message(beanClass, method));
        }
    }

    /** What a resolver reads; outside a request, only the bucket, the method and its arguments. */
    CallContext callContext(RateLimitedMethodCache.BoundLimit limit, InvocationContext context) {
        Optional<String> principal = Optional.empty();
        Optional<String> address = Optional.empty();
        RequestAttributes attributes = RequestAttributes.NONE;
        try {
            principal = identity.principalName();
            address = identity.clientAddress();
            attributes = identity.attributes();
        } catch (ContextNotActiveException e) {
            // a call outside HTTP: the resolver may still key by the arguments
        }
        return new CallContext(limit.bucket().name(), Optional.of(context.getMethod()),
                Collections.unmodifiableList(Arrays.asList(context.getParameters())), principal, address, attributes);
    }


    private static IllegalStateException noKey(Class<?> beanClass, Method method) {
        return new IllegalStateException(RateLimitedMethod.describe(beanClass, method) + " is @RateLimited "
                + "with a key from the request (no @RateLimitKey parameter, or key = PRINCIPAL or CLIENT_ADDRESS) and "
                + "was called outside an HTTP request handled by the rate limiter's filter, so there is no principal "
                + "or client address to key it by");
    }
}
