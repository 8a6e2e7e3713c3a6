package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.cdi.call.CostResolvers;
import dev.ratelimiter.internal.cdi.call.KeyResolverInvoker;
import dev.ratelimiter.internal.cdi.call.PlanResolvers;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.plan.Planner;
import dev.ratelimiter.internal.core.settings.FailureCounting;
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
     * @param counting which calls stay counted, the bucket's property overridden by {@code @RateLimited(count)}
     * @param planner  chooses each call's limits among the bucket's plans (docs/plans.md); {@code null} when no
     *                 plan resolver is named: the bucket's own limits always apply
     * @param costs    reads a settled call's cost from its result ({@code @RateLimited(costResolver)}); {@code null}
     *                 when none is named
     */
    public record BoundLimit(Bucket bucket, RateLimitedMethod.Limit limit, KeyResolverInvoker.Resolver resolver,
                             FailureCounting counting, Planner planner, CostResolvers.CostResolver costs) {

        /** A limit without a cost resolver. */
        public BoundLimit(Bucket bucket, RateLimitedMethod.Limit limit, KeyResolverInvoker.Resolver resolver,
                          FailureCounting counting, Planner planner) {
            this(bucket, limit, resolver, counting, planner, null);
        }

        /**
         * Whether the call is kept once counted, to be corrected when it ends: failures only, or settled; or a
         * concurrency bucket's permit, given back when it ends.
         */
        public boolean kept() {
            return counting.failuresOnly() || limit.settle() || bucket.isConcurrency();
        }

        /** A limit without a plan resolver. */
        public BoundLimit(Bucket bucket, RateLimitedMethod.Limit limit, KeyResolverInvoker.Resolver resolver,
                          FailureCounting counting) {
            this(bucket, limit, resolver, counting, null);
        }

        /** A limit that counts every call. */
        public BoundLimit(Bucket bucket, RateLimitedMethod.Limit limit, KeyResolverInvoker.Resolver resolver) {
            this(bucket, limit, resolver, FailureCounting.ALL);
        }
    }

    /**
     * A resolved binding: the limits in declaration order, and the method's key parameter and result type, with what
     * each call would otherwise derive from the limits again.
     *
     * @param limits  at least one, in the order they are decided
     * @param method  what the annotations ask
     * @param planned whether a limit has a planner, so each call's limits are chosen before it is decided
     * @param kept    whether a limit keeps its counted call to correct it when the call ends ({@link BoundLimit#kept})
     * @param settles whether a limit settles its cost after the call, so the call opens a frame for the costs its
     *                method gives ({@link SettledCalls})
     */
    public record Binding(List<BoundLimit> limits, RateLimitedMethod method, boolean planned, boolean kept,
                          boolean settles) {

        public Binding {
            limits = List.copyOf(limits);
        }

        /** A binding, each flag read from its limits. */
        public Binding(List<BoundLimit> limits, RateLimitedMethod method) {
            this(limits, method, limits.stream().anyMatch(limit -> limit.planner() != null),
                    limits.stream().anyMatch(BoundLimit::kept),
                    limits.stream().anyMatch(limit -> limit.limit().settle()));
        }
    }

    @Inject
    RateLimitDecider decider;

    @Inject
    KeyResolverInvoker resolvers;

    @Inject
    LimiterConfiguration configuration;

    @Inject
    LimiterRuntime runtime;

    @Inject
    PlanResolvers plans;

    @Inject
    CostResolvers costResolvers;

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

    /**
     * Forgets every binding, so each method's buckets and planners are resolved again at its next call: after a
     * reload changed a bucket's settings (docs/live-limits.md).
     */
    public void forget() {
        bindings.clear();
    }

    private Binding resolve(Class<?> beanClass, Method method) {
        try {
            RateLimitedMethod rateLimited = RateLimitedMethod.of(beanClass, method).orElseThrow(() ->
                    new IllegalArgumentException(RateLimitedMethod.describe(beanClass, method)
                            + " carries no @RateLimited"));
            return new Binding(rateLimited.limits().stream().map(limit -> {
                Bucket bucket = decider.bucket(limit.bucketName());
                return new BoundLimit(bucket, limit, resolver(beanClass, method, limit),
                        counting(beanClass, method, bucket, limit), planner(beanClass, method, bucket, limit),
                        costs(beanClass, method, limit));
            }).toList(), rateLimited);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The bucket's counting, as the annotation's {@code count} overrides it; a store without refunds fails it. */
    private FailureCounting counting(Class<?> beanClass, Method method, Bucket bucket, RateLimitedMethod.Limit limit) {
        FailureCounting configured = configuration.settings().counting(bucket);
        FailureCounting counting = switch (limit.count()) {
            case BUCKET -> configured;
            case ALL -> configured.everyCall();
            case FAILURES -> configured.onlyFailures();
        };
        if (counting.failuresOnly() && !runtime.refunds()) {
            throw new IllegalArgumentException(RateLimitedMethod.describe(beanClass, method) + ": @RateLimited(bucket "
                    + "= \"" + limit.bucketName() + "\", count = FAILURES), but the store of ratelimiter.backend="
                    + configuration.settings().backend() + " gives no counts back "
                    + "(docs/guide.md#counting-failures-only); remove count, or choose memory, valkey or postgres");
        }
        return counting;
    }

    /** The cost resolver a settled limit names; a store that takes no debits fails a settled limit. */
    private CostResolvers.CostResolver costs(Class<?> beanClass, Method method, RateLimitedMethod.Limit limit) {
        String where = RateLimitedMethod.describe(beanClass, method) + ": @RateLimited(bucket = \""
                + limit.bucketName() + "\", settle = true)";
        if (limit.settle() && !runtime.debits()) {
            throw new IllegalArgumentException(where + ", but the store of ratelimiter.backend="
                    + configuration.settings().backend() + " takes no debits "
                    + "(docs/guide.md#costs-settled-after-the-call); remove settle, or choose memory, valkey or "
                    + "postgres");
        }
        if (limit.costResolver() == null) {
            return null;
        }
        try {
            return costResolvers.find(limit.costResolver());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private Planner planner(Class<?> beanClass, Method method, Bucket bucket, RateLimitedMethod.Limit limit) {
        try {
            return plans.planner(bucket, limit.planResolver()).orElse(null);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(RateLimitedMethod.describe(beanClass, method)
                    + ": @RateLimited(bucket = \"" + limit.bucketName() + "\"): " + e.getMessage(), e);
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
