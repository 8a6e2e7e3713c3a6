package dev.ratelimiter.cdi;

import dev.ratelimiter.Bucket;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves each {@code @RateLimited} method once per bean class and keeps the result, so the interceptor does no
 * reflection per call. Keyed by the pair: two beans inheriting one method may bind it to different buckets.
 */
@ApplicationScoped
public class RateLimitedMethods {

    /** A resolved binding: the bucket itself and where the key comes from. */
    public record Binding(Bucket bucket, RateLimitedMethod method) {
    }

    @Inject
    RateLimitDecider decider;

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
            return new Binding(decider.bucket(rateLimited.bucketName()), rateLimited);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
