package dev.ratelimiter;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits calls of a CDI bean method (or of every business method of a type) with a configured bucket.
 *
 * <p>Each call counts one attempt before the method runs, keyed by the parameter marked {@link RateLimitKey},
 * else the request's principal name, else the request's client address. A denied call throws
 * {@link RateLimitExceededException} (HTTP 429) without running the method; when the backend is down and the
 * bucket's policy is {@link OutagePolicy#FAIL_CLOSED}, {@link RateLimiterUnavailableException} (HTTP 503).
 * Outside an HTTP request, a method without a {@code @RateLimitKey} fails with {@link IllegalStateException}.
 *
 * <p>The interceptor runs at {@code Interceptor.Priority.PLATFORM_BEFORE + 100}: before {@code @Transactional}
 * and MicroProfile Fault Tolerance, so a denied call opens no transaction and triggers no retry.
 *
 * <p>The bucket must be configured ({@code ratelimiter.buckets.<bucket>.limit} and {@code .window}); an unknown
 * bucket fails the deployment with a message naming it and the method.
 */
@InterceptorBinding
@Inherited
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RateLimited {

    /** {@return the bucket's name, as in {@code ratelimiter.buckets.<name>.*}} */
    @Nonbinding
    String bucket();
}
