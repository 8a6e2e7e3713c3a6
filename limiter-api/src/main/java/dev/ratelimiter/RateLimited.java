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
 * Limits calls of a CDI bean method (or of every business method of a type, those it inherits included) with a
 * configured bucket. On a type it is inherited by subclasses and may be carried by a stereotype; on a method it
 * replaces the type's (CDI's rules for interceptor bindings).
 *
 * <p>Each call counts {@link #cost()} attempts (one by default) before the method runs, keyed by the parameter
 * marked {@link RateLimitKey}, else the request's principal name, else the request's client address. A denied call
 * throws {@link RateLimitExceededException} (HTTP 429) without running the method; when the backend is down and the
 * bucket's policy is {@link OutagePolicy#FAIL_CLOSED}, {@link RateLimiterUnavailableException} (HTTP 503).
 * A method returning {@code CompletionStage} or {@code CompletableFuture} returns the refusal as a failed stage
 * instead (counted at the call); one returning Mutiny's {@code Uni} or {@code Multi}, as a failure of that type,
 * counted at each subscription (see the README, "Adding it to an application").
 * Outside an HTTP request, a method without a {@code @RateLimitKey} fails with {@link IllegalStateException}.
 *
 * <p>The interceptor runs at {@code Interceptor.Priority.PLATFORM_BEFORE + 100}: before {@code @Transactional}
 * and MicroProfile Fault Tolerance, so a denied call opens no transaction and triggers no retry.
 *
 * <p>The bucket must be configured ({@code ratelimiter.buckets.<bucket>.limit} and {@code .window}, or
 * {@code .limits}); an unknown bucket, or a {@link #cost()} below 0 or above the bucket's smallest limit, fails the
 * deployment with a message naming it and the method.
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

    /**
     * {@return attempts each call counts, 1 by default: a call is allowed iff every window of the bucket has that
     * many left, and a refused call counts nothing; 0 checks without counting. From 0 to the bucket's smallest
     * limit (checked at startup)}
     */
    @Nonbinding
    long cost() default 1;
}
