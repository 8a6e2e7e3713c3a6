package dev.ratelimiter;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits calls of a CDI bean method (or of every business method of a type, those it inherits included) with a
 * configured bucket. On a type it is inherited by subclasses and may be carried by a stereotype; on a method it
 * replaces the type's (CDI's rules for interceptor bindings).
 *
 * <p>Each call counts {@link #cost()} attempts (one by default) before the method runs, keyed as {@link #key()} says: by default the parameter
 * marked {@link RateLimitKey}, else the request's principal name, else the request's client address. A denied call
 * throws {@link RateLimitExceededException} (HTTP 429) without running the method; when the backend is down and
 * the bucket's policy is {@link OutagePolicy#FAIL_CLOSED}, {@link RateLimiterUnavailableException} (HTTP 503).
 * A method returning {@code CompletionStage} or {@code CompletableFuture} returns the refusal as a failed stage
 * instead (counted at the call); one returning Mutiny's {@code Uni} or {@code Multi}, as a failure of that type,
 * counted at each subscription (docs/guide.md#adding-it-to-an-application).
 * Outside an HTTP request, a method keyed by the request (principal, client address) fails with
 * {@link IllegalStateException}.
 *
 * <p>Several limits on one method: repeat the annotation on the method (docs/guide.md#several-limits-on-one-method),
 * each with its own bucket and key source. The buckets are decided in declaration order, each counting one attempt; the
 * first refusal stops the call, so later buckets are not counted while earlier ones keep their count. The keys are all
 * resolved before any bucket counts, so a call refused for a missing key ({@link RateLimitKeyMissingException}, HTTP
 * 400) counts in none. A bucket may appear once per method, and the annotation may be repeated on methods only (Quarkus
 * ArC does not apply repeated bindings of a type).
 *
 * <p>The interceptor runs at {@code Interceptor.Priority.PLATFORM_BEFORE + 100}: before {@code @Transactional}
 * and MicroProfile Fault Tolerance, so a denied call opens no transaction and triggers no retry.
 *
 * <p>The bucket must be configured ({@code ratelimiter.buckets.<bucket>.limit} and {@code .window}, or
 * {@code .limits}); an unknown bucket, a {@link #cost()} below 0 or above the bucket's largest cost, a key source
 * the method cannot give or a resolver that is not exactly one bean fails the deployment with a message naming the
 * method and the attribute.
 */
@InterceptorBinding
@Inherited
@Documented
@Repeatable(RateLimited.List.class)
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

    /**
     * {@return where the key comes from; {@link Key#DEFAULT} (today's rule) unless set, or {@link Key#RESOLVER}
     * when {@link #resolver()} or {@link #resolverName()} is set}
     */
    @Nonbinding
    Key key() default Key.DEFAULT;

    /**
     * {@return the {@link RateLimitKeyResolver} bean, by its bean class (or any type only it has), for
     * {@link Key#RESOLVER}; the interface itself (the default) names none}
     */
    @Nonbinding
    Class<? extends RateLimitKeyResolver> resolver() default RateLimitKeyResolver.class;

    /**
     * {@return the {@link RateLimitKeyResolver} bean, by its {@code @Named} name, for {@link Key#RESOLVER}; empty
     * (the default) names none. At most one of {@code resolver} and {@code resolverName} is set}
     */
    @Nonbinding
    String resolverName() default "";

    /**
     * {@return the {@link RateLimitPlanResolver} bean, by its bean class (or any type only it has), that chooses
     * the bucket's limits for each call among its declared plans (docs/plans.md); the interface itself (the
     * default) names none, and the bucket's {@code ratelimiter.buckets.<name>.plan-resolver} applies, if set}
     */
    @Nonbinding
    Class<? extends RateLimitPlanResolver> planResolver() default RateLimitPlanResolver.class;

    /**
     * {@return the {@link RateLimitPlanResolver} bean, by its {@code @Named} name; empty (the default) names none.
     * At most one of {@code planResolver} and {@code planResolverName} is set}
     */
    @Nonbinding
    String planResolverName() default "";

    /**
     * {@return the key sources tried, in order, when {@link #key()} gives no key: an anonymous request for
     * {@link Key#PRINCIPAL}; a resolver that returned {@code null} or a blank key, or threw. Empty (the
     * default): such a call is refused with {@link RateLimitKeyMissingException} (HTTP 400) and counts nowhere.
     * {@link Key#RESOLVER} cannot be a fallback}
     */
    @Nonbinding
    Key[] fallback() default {};

    /**
     * {@return which calls the bucket keeps counted here (docs/guide.md#counting-failures-only): {@link Count#BUCKET}
     * (the default) as the bucket's {@code ratelimiter.buckets.<name>.count} says; {@link Count#ALL} every call;
     * {@link Count#FAILURES} only the calls that fail. Either way a call is counted before it runs, so a spent
     * bucket refuses before any work; a failures-only call that succeeds has its cost given back}
     */
    @Nonbinding
    Count count() default Count.BUCKET;

    /**
     * {@return whether the call's cost is settled once it has run (docs/guide.md#costs-settled-after-the-call):
     * {@link #cost()} is then what the call reserves before it runs (refused when the bucket has not that much
     * left), and its actual cost, once known, replaces it: the difference is debited from, or given back to, the
     * windows the call was counted in, never a later one. The actual cost comes from the method
     * ({@link RateLimitCosts#settle}), else from its result ({@link #costResolver()}), else from a JAX-RS
     * resource's response header {@link RateLimitCosts#HEADER}; none given, the reservation stands. Keys overrun a
     * limit by at most what their calls in flight cost beyond what they reserved. Needs a store that takes debits
     * (memory, valkey, postgres), else the deployment fails; not with {@code count = FAILURES}, a {@code cost} of 0,
     * or on a method returning Mutiny's {@code Multi}}
     */
    @Nonbinding
    boolean settle() default false;

    /**
     * {@return the {@link RateLimitCostResolver} bean, by its bean class (or any type only it has), that reads the
     * call's actual cost from its result, for {@link #settle()}; the interface itself (the default) names none}
     */
    @Nonbinding
    Class<? extends RateLimitCostResolver> costResolver() default RateLimitCostResolver.class;

    /** Which calls a bucket keeps counted, on {@link #count()}. */
    enum Count {
        /** As the bucket's {@code ratelimiter.buckets.<name>.count} property says ({@code all} when unset). */
        BUCKET,
        /** Every call. */
        ALL,
        /**
         * Only the calls that fail: a call that returns normally, or throws an exception the bucket's
         * {@code ratelimiter.buckets.<name>.failure-exceptions} does not name, gets its cost back; a
         * {@code CompletionStage}, {@code Uni} or {@code Multi} by how it completes.
         */
        FAILURES
    }

    /** Where a bucket's key comes from. Keys are normalized (see {@link RateLimitKey}) and hashed before counting. */
    enum Key {
        /**
         * The parameter marked {@link RateLimitKey} if the method has one, else the request's principal name when
         * authenticated, else its client address: the rule of a single {@code @RateLimited}.
         */
        DEFAULT,
        /** The parameter marked {@link RateLimitKey}, normalized as it says; the method must have one. */
        PARAMETER,
        /** The authenticated principal's name; an anonymous request goes to {@link RateLimited#fallback()}. */
        PRINCIPAL,
        /** The client address, as the global filter resolves it (trusted proxies, IPv6 prefix). */
        CLIENT_ADDRESS,
        /** The key a {@link RateLimitKeyResolver} returns, named by {@link RateLimited#resolver()} or
         * {@link RateLimited#resolverName()}. */
        RESOLVER
    }

    /**
     * The container of repeated {@link RateLimited} annotations on a method: written by the compiler, not by hand.
     * It binds no interceptor itself: Weld (Payara, Open Liberty) and ArC (Quarkus) apply each repeated
     * {@code @RateLimited} as the binding (CDI 4.0 §9.1, repeatable interceptor bindings).
     */
    @Documented
    @Inherited
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @interface List {

        /** {@return the repeated annotations, in declaration order} */
        RateLimited[] value();
    }
}
