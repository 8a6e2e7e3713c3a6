package dev.ratelimiter.cdi;

import dev.ratelimiter.Bucket;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves each {@code @RateLimited} method once and keeps the result, so the interceptor does no reflection per
 * call.
 */
@ApplicationScoped
public class RateLimitedMethods {

    /** A resolved binding: the bucket itself and where the key comes from. */
    public record Binding(Bucket bucket, RateLimitedMethod method) {
    }

    @Inject
    RateLimitDecider decider;

    private final Map<Method, Binding> bindings = new ConcurrentHashMap<>();

    /**
     * @throws IllegalStateException naming the method, if its binding is invalid (normally caught at startup)
     */
    public Binding binding(Method method) {
        Binding binding = bindings.get(method);
        return binding != null ? binding : bindings.computeIfAbsent(method, this::resolve);
    }

    private Binding resolve(Method method) {
        try {
            RateLimitedMethod rateLimited = RateLimitedMethod.of(method).orElseThrow(() ->
                    new IllegalArgumentException(RateLimitedMethod.describe(method) + " carries no @RateLimited"));
            return new Binding(decider.bucket(rateLimited.bucketName()), rateLimited);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
