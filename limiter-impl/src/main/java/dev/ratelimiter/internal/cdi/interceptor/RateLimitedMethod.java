package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimitCostResolver;
import dev.ratelimiter.RateLimitKeyResolver;
import dev.ratelimiter.RateLimitPlanResolver;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.internal.cdi.startup.StartupValidator;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@link RateLimited} asks of one method of one bean class: its limits in declaration order (from the
 * bindings the container applies, see {@link InterceptorBindings}), the {@link RateLimitKey} parameter, if any,
 * and how the method delivers its result.
 *
 * @param limits        one per {@code @RateLimited}, in declaration order, at least one
 * @param keyParameter  the index of the {@code @RateLimitKey} parameter, or -1 if the method has none
 * @param normalization the key parameter's normalization ({@code NONE} without a key parameter)
 * @param result        how a refusal is delivered and when the attempts are counted
 */
public record RateLimitedMethod(List<Limit> limits, int keyParameter, KeyNormalization normalization,
                                ResultType result) {

    public RateLimitedMethod {
        limits = List.copyOf(limits);
    }

    /**
     * Where one bucket's key comes from, with {@link RateLimited.Key#DEFAULT} already turned into what it means for
     * this method.
     */
    public enum KeySource {
        /** The {@code @RateLimitKey} parameter. */
        PARAMETER,
        /** The principal's name when authenticated, else the client address. */
        IDENTITY,
        /** The principal's name only. */
        PRINCIPAL,
        /** The client address only. */
        CLIENT_ADDRESS,
        /** A {@link RateLimitKeyResolver} bean. */
        RESOLVER
    }

    /**
     * A resolver named by {@link RateLimited#resolver()} or {@link RateLimited#resolverName()}.
     *
     * @param type the bean type, or {@code null} when named
     * @param name the {@code @Named} name, or {@code null} when given by type
     */
    public record ResolverName(Class<? extends RateLimitKeyResolver> type, String name) {

        /** {@code resolver = com.example.TenantKeys.class} or {@code resolverName = "tenant"}, for messages. */
        public String describe() {
            return type != null ? "resolver = " + type.getName() + ".class" : "resolverName = \"" + name + "\"";
        }
    }

    /**
     * A plan resolver named by {@link RateLimited#planResolver()} or {@link RateLimited#planResolverName()}
     * (docs/plans.md).
     *
     * @param type the bean type, or {@code null} when named
     * @param name the {@code @Named} name, or {@code null} when given by type
     */
    public record PlanResolverName(Class<? extends RateLimitPlanResolver> type, String name) {

        /** {@code planResolver = com.example.TenantPlans.class} or {@code planResolverName = "plans"}, for messages. */
        public String describe() {
            return type != null ? "planResolver = " + type.getName() + ".class"
                    : "planResolverName = \"" + name + "\"";
        }
    }

    /**
     * One {@code @RateLimited} of the method.
     *
     * @param bucketName the bucket to count in
     * @param source     where the key comes from
     * @param fallback   sources tried in order when {@code source} gives no key (never {@code RESOLVER})
     * @param resolver   the resolver, for {@link KeySource#RESOLVER}; {@code null} otherwise
     * @param cost       attempts each call counts in this bucket ({@link RateLimited#cost()}); checked against the
     *                   bucket at startup by {@link StartupValidator}
     * @param count      which calls stay counted ({@link RateLimited#count()}), {@code BUCKET} for the bucket's own
     *                   {@code count} property
     * @param planResolver the plan resolver the annotation names; {@code null} when it names none (the bucket's
     *                     {@code plan-resolver} property then applies, if set)
     * @param settle       whether the call's cost is settled after it runs ({@link RateLimited#settle()}), so
     *                     {@code cost} is what it reserves
     * @param costResolver the cost resolver's bean type ({@link RateLimited#costResolver()}); {@code null} for none
     */
    public record Limit(String bucketName, KeySource source, List<KeySource> fallback, ResolverName resolver,
                        long cost, RateLimited.Count count, PlanResolverName planResolver, boolean settle,
                        Class<? extends RateLimitCostResolver> costResolver) {

        public Limit {
            fallback = List.copyOf(fallback);
            count = count == null ? RateLimited.Count.BUCKET : count;
        }

        /**
         * What a concurrency bucket's {@code @RateLimited} must not say (docs/guide.md#concurrency-limits): a call
         * holds one permit, given back when it ends, so it has no cost to settle, no failure to keep counted, and
         * cost 0 would take none.
         */
        public Optional<String> concurrencyProblem() {
            if (settle) {
                return Optional.of("settle = true on a concurrency bucket, whose calls hold one permit each; remove "
                        + "settle, or settle on a rate bucket of the same method");
            }
            if (count == RateLimited.Count.FAILURES) {
                return Optional.of("count = FAILURES on a concurrency bucket, whose permits are given back when every "
                        + "call ends; remove count");
            }
            if (cost == 0) {
                return Optional.of("cost = 0 on a concurrency bucket would take no permit; remove cost (a call holds "
                        + "one permit)");
            }
            return Optional.empty();
        }

        /** A limit whose cost is fixed before the call. */
        public Limit(String bucketName, KeySource source, List<KeySource> fallback, ResolverName resolver,
                     long cost, RateLimited.Count count, PlanResolverName planResolver) {
            this(bucketName, source, fallback, resolver, cost, count, planResolver, false, null);
        }

        /** A limit whose calls count as the bucket's {@code count} property says. */
        public Limit(String bucketName, KeySource source, List<KeySource> fallback, ResolverName resolver, long cost) {
            this(bucketName, source, fallback, resolver, cost, RateLimited.Count.BUCKET);
        }

        /** A limit without a plan resolver of its own. */
        public Limit(String bucketName, KeySource source, List<KeySource> fallback, ResolverName resolver, long cost,
                     RateLimited.Count count) {
            this(bucketName, source, fallback, resolver, cost, count, null);
        }
    }

    /**
     * Reads the rate-limit bindings of {@code method} as called on an instance of {@code beanClass}.
     *
     * @param beanClass the bean class the container intercepts (a subclass of the method's declaring class, or it)
     * @param method    a business method of that class
     * @return empty if neither the method nor the bean class (its superclasses, its stereotypes) is
     *         {@code @RateLimited}
     * @throws IllegalArgumentException naming the method and the attribute, if a {@code @RateLimitKey} is not on a
     *                                  {@link CharSequence} parameter or appears more than once, or a
     *                                  {@code @RateLimited} asks for a key the method cannot give, names a bucket
     *                                  twice, or is repeated on a type
     */
    public static Optional<RateLimitedMethod> of(Class<?> beanClass, Method method) {
        List<RateLimited> bindings = InterceptorBindings.rateLimited(beanClass, method);
        if (bindings.isEmpty()) {
            return Optional.empty();
        }
        List<String> problems = new ArrayList<>();
        int keyParameter = -1;
        KeyNormalization normalization = KeyNormalization.NONE;
        Parameter[] parameters = method.getParameters();
        for (int i = 0; i < parameters.length; i++) {
            RateLimitKey key = parameters[i].getAnnotation(RateLimitKey.class);
            if (key == null) {
                continue;
            }
            if (!CharSequence.class.isAssignableFrom(parameters[i].getType())) {
                problems.add("@RateLimitKey is on parameter " + i + " of type "
                        + parameters[i].getType().getSimpleName() + "; it must be a CharSequence such as String");
            }
            if (keyParameter >= 0) {
                problems.add("@RateLimitKey is on more than one parameter");
            }
            keyParameter = i;
            normalization = key.normalize();
        }
        if (bindings.size() > 1 && !InterceptorBindings.onMethod(method)) {
            problems.add("@RateLimited is repeated on the type; repeat it on the methods instead (Quarkus ArC does "
                    + "not apply a repeated binding of a type)");
        }
        List<Limit> limits = new ArrayList<>();
        Set<String> buckets = new HashSet<>();
        for (RateLimited binding : bindings) {
            if (!buckets.add(binding.bucket())) {
                problems.add("@RateLimited(bucket = \"" + binding.bucket() + "\") appears more than once; give "
                        + "each limit its own bucket");
            }
            limits.add(limit(binding, keyParameter >= 0, problems));
        }
        ResultType result = ResultType.of(method);
        if (result == ResultType.MULTI && limits.stream().anyMatch(Limit::settle)) {
            problems.add("settle = true on a method returning Multi, which has no one result to read a cost from; "
                    + "settle the calls of a method returning Uni or a value instead");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(describe(beanClass, method) + ": " + String.join("; ", problems));
        }
        return Optional.of(new RateLimitedMethod(limits, keyParameter, normalization, result));
    }

    private static Limit limit(RateLimited binding, boolean hasKeyParameter, List<String> problems) {
        String where = "@RateLimited(bucket = \"" + binding.bucket() + "\")";
        boolean byType = binding.resolver() != RateLimitKeyResolver.class;
        boolean byName = !binding.resolverName().isEmpty();
        ResolverName resolver = null;
        if (byType && byName) {
            problems.add(where + " sets both resolver and resolverName; set one");
        } else if (byType || byName) {
            resolver = new ResolverName(byType ? binding.resolver() : null, byType ? null : binding.resolverName());
        }
        KeySource source = switch (binding.key()) {
            case DEFAULT -> resolver != null ? KeySource.RESOLVER
                    : hasKeyParameter ? KeySource.PARAMETER : KeySource.IDENTITY;
            case PARAMETER -> KeySource.PARAMETER;
            case PRINCIPAL -> KeySource.PRINCIPAL;
            case CLIENT_ADDRESS -> KeySource.CLIENT_ADDRESS;
            case RESOLVER -> KeySource.RESOLVER;
        };
        if (source == KeySource.RESOLVER && resolver == null) {
            problems.add(where + ": key = RESOLVER needs resolver or resolverName");
        }
        if (source != KeySource.RESOLVER && resolver != null) {
            problems.add(where + ": key = " + binding.key() + " with " + resolver.describe()
                    + "; a resolver gives the key only with key = RESOLVER (or key left unset)");
        }
        List<KeySource> fallback = new ArrayList<>();
        for (RateLimited.Key key : binding.fallback()) {
            switch (key) {
                case RESOLVER -> problems.add(where + ": fallback = RESOLVER; a fallback is PARAMETER, PRINCIPAL, "
                        + "CLIENT_ADDRESS or DEFAULT");
                case DEFAULT -> fallback.add(hasKeyParameter ? KeySource.PARAMETER : KeySource.IDENTITY);
                case PARAMETER -> fallback.add(KeySource.PARAMETER);
                case PRINCIPAL -> fallback.add(KeySource.PRINCIPAL);
                case CLIENT_ADDRESS -> fallback.add(KeySource.CLIENT_ADDRESS);
            }
        }
        if (!fallback.isEmpty() && source != KeySource.RESOLVER && source != KeySource.PRINCIPAL) {
            problems.add(where + ": fallback is set but key = " + binding.key() + " always gives a key; a fallback "
                    + "serves key = RESOLVER or PRINCIPAL");
        }
        boolean parameterNeeded = source == KeySource.PARAMETER || fallback.contains(KeySource.PARAMETER);
        if (parameterNeeded && !hasKeyParameter) {
            problems.add(where + ": key = PARAMETER (or fallback = PARAMETER) but no parameter is marked "
                    + "@RateLimitKey");
        }
        boolean planByType = binding.planResolver() != RateLimitPlanResolver.class;
        boolean planByName = !binding.planResolverName().isEmpty();
        PlanResolverName planResolver = null;
        if (planByType && planByName) {
            problems.add(where + " sets both planResolver and planResolverName; set one");
        } else if (planByType || planByName) {
            planResolver = new PlanResolverName(planByType ? binding.planResolver() : null,
                    planByType ? null : binding.planResolverName());
        }
        Class<? extends RateLimitCostResolver> costResolver =
                binding.costResolver() == RateLimitCostResolver.class ? null : binding.costResolver();
        if (costResolver != null && !binding.settle()) {
            problems.add(where + ": costResolver is set but settle is not; set settle = true for the resolver's "
                    + "cost to replace the reservation");
        }
        if (binding.settle() && binding.count() == RateLimited.Count.FAILURES) {
            problems.add(where + ": settle = true with count = FAILURES; a settled call keeps the cost it turned "
                    + "out to have, so remove one of them");
        }
        if (binding.settle() && binding.cost() < 1) {
            problems.add(where + ": settle = true with cost = " + binding.cost() + "; a settled call reserves a "
                    + "cost of 1 or more before it runs");
        }
        return new Limit(binding.bucket(), source, fallback, resolver, binding.cost(), binding.count(), planResolver,
                binding.settle(), costResolver);
    }

    /** {@code com.example.LoginService#login(String, String)}, for messages. */
    public static String describe(Method method) {
        return describe(method.getDeclaringClass(), method);
    }

    /**
     * {@code com.example.ItemsResource#list()}: the method as seen on {@code beanClass}, with
     * {@code (declared in com.example.CrudBase)} when it is inherited.
     */
    public static String describe(Class<?> beanClass, Method method) {
        String signature = beanClass.getName() + "#" + method.getName() + "("
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(", ")) + ")";
        return beanClass == method.getDeclaringClass() ? signature
                : signature + " (declared in " + method.getDeclaringClass().getName() + ")";
    }
}
