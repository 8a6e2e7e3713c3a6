package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.Bucket;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves each {@code @RateLimited} method once per bean class and keeps the result, so the interceptor does no
 * reflection and no bean look-up per call. Keyed by the pair: two beans inheriting one method may bind it to
 * different buckets.
 */
@ApplicationScoped
public class RateLimitedMethodCache {

    /**
     * One limit of a method, resolved.
     *
     * @param bucket   the configured bucket
     * @param limit    where its key comes from
     * @param resolver the resolver bean, for a key from a resolver; {@code null} otherwise
     */
    public record BoundLimit(Bucket bucket, RateLimitedMethod.Limit limit, KeyResolverInvoker.Resolver resolver) {
    }

    /**
     * A resolved binding: the limits in declaration order, and the method's key parameter and result type.
     *
     * @param limits at least one, in the order they are decided
     * @param method what the annotations ask
     */
    public record Binding(List<BoundLimit> limits, RateLimitedMethod method) {

        public Binding {
            limits = List.copyOf(limits);
        }
    }

    @Inject
    RateLimitDecider decider;

    @Inject
    KeyResolverInvoker resolvers;

    // Nested rather than keyed by a pair record: a look-up allocates nothing.
    private final Map<Class<?>, Map<Method, Binding>> bindings = new ConcurrentHashMap<>();

    /**
     * The binding of {@code method} called on an instance of {@code beanClass}.
     *
     * @throws IllegalStateException naming the method, if its binding is invalid (normally caught at startup)
     */
    public Binding binding(Class<?> beanClass, Method method) {
        Map<Method, Binding> ofClass = bindings.get(beanClass);
        if (ofClass == null) {
            ofClass = bindings.computeIfAbsent(beanClass, type -> new ConcurrentHashMap<>());
        }
        Binding binding = ofClass.get(method);
        return binding != null ? binding : ofClass.computeIfAbsent(method, m -> resolve(beanClass, m));
    }

    private Binding resolve(Class<?> beanClass, Method method) {
        try {
            RateLimitedMethod rateLimited = RateLimitedMethod.of(beanClass, method).orElseThrow(() ->
                    new IllegalArgumentException(RateLimitedMethod.describe(beanClass, method)
                            + " carries no @RateLimited"));
            return new Binding(rateLimited.limits().stream().map(limit -> new BoundLimit(
                    decider.bucket(limit.bucketName()), limit, resolver(beanClass, method, limit))).toList(),
                    rateLimited);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private KeyResolverInvoker.Resolver resolver(Class<?> beanClass, Method method, RateLimitedMethod.Limit limit) {
        if (limit.resolver() == null) {
            return null;
        }
        try {
            return resolvers.find(limit.resolver());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(RateLimitedMethod.describe(beanClass, method)
                    + ": @RateLimited(bucket = \"" + limit.bucketName() + "\"): " + e.getMessage(), e);
        }
    }
}
