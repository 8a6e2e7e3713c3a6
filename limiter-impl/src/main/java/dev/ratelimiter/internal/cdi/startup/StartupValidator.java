package dev.ratelimiter.internal.cdi.startup;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.BucketName;
import dev.ratelimiter.RateLimitedBy;
import dev.ratelimiter.internal.cdi.call.KeyResolverInvoker;
import dev.ratelimiter.internal.cdi.call.PlanResolvers;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethod;
import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.internal.cdi.runtime.MetricsConnection;
import dev.ratelimiter.internal.cdi.runtime.SettingsReloader;
import dev.ratelimiter.internal.core.decision.CallCosts;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.SettingsUpdate;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanContainer;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Fails the deployment, at startup, on anything that would otherwise fail on the first request: an invalid
 * property, a {@code @RateLimited} or an injected {@code @BucketName} naming a bucket that is not configured, a
 * key source the method cannot give, a {@code @RateLimited} cost above what its bucket or one of the bucket's plans
 * allows a call, a key resolver that is not exactly one bean (also {@code ratelimiter.api.key-resolver}), a plan
 * resolver that is not exactly one bean ({@code planResolver}, {@code ratelimiter.buckets.<name>.plan-resolver}),
 * a {@code @RateLimitKey} on a non-string, a binding no container would
 * apply ({@link UnappliedBindings}). All problems are reported at once in one {@link ConfigurationException}.
 *
 * <p>The annotated methods are found by walking the classes of the application's beans through
 * {@link BeanContainer} (CDI Lite): no portable extension, so the same code runs under Weld and Quarkus ArC.
 */
@ApplicationScoped
public class StartupValidator {

    private static final System.Logger LOG = System.getLogger(StartupValidator.class.getName());

    @Inject
    LimiterConfiguration configuration;

    @Inject
    LimiterRuntime runtime;

    @Inject
    MetricsConnection metrics;

    @Inject
    BeanContainer beans;

    @Inject
    KeyResolverInvoker resolvers;

    @Inject
    PlanResolvers plans;

    @Inject
    SettingsReloader reloader;

    void validate(@Observes Startup startup) {
        LimiterSettings settings;
        try {
            settings = configuration.settings(); // parsing errors surface here
            runtime.start(); // the chain now, not on the first request, so a store that cannot work fails here
            metrics.connect(settings, () -> runtime.status().state() == BackendState.DEGRADED);
        } catch (RuntimeException e) {
            throw unwrap(e);
        }
        Set<String> problems = new LinkedHashSet<>(); // a type-level binding would repeat per method
        try {
            resolvers.global();
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        Function<RateLimitedMethod.ResolverName, Optional<String>> resolverProblem = name -> {
            try {
                resolvers.find(name);
                return Optional.empty();
            } catch (IllegalArgumentException e) {
                return Optional.of(e.getMessage());
            }
        };
        for (Bucket bucket : settings.buckets().values()) {
            try {
                plans.planner(bucket, null); // its plan-resolver property, if set (docs/plans.md)
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        for (Class<?> beanClass : beanClasses()) {
            if (!beanClass.isAnnotationPresent(Interceptor.class)) {
                problems.addAll(check(beanClass, settings, resolverProblem));
                problems.addAll(planResolvers(beanClass, settings));
                problems.addAll(injectedBuckets(beanClass, settings));
                problems.addAll(documentedBuckets(beanClass, settings));
                problems.addAll(unapplied(beanClass));
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigurationException(List.copyOf(problems));
        }
        Map<String, SettingsUpdate.StaticCost> costs = new java.util.HashMap<>();
        for (Class<?> beanClass : beanClasses()) {
            if (!beanClass.isAnnotationPresent(Interceptor.class)) {
                staticCosts(beanClass, costs);
            }
        }
        reloader.start(costs);
        runtime.announceReady();
    }

    /**
     * The {@link ConfigurationException} behind a bean's failed creation: containers wrap it (Weld's
     * WELD-000049) and some servers print only the wrapper's message, which would hide what to change.
     */
    private static RuntimeException unwrap(RuntimeException failure) {
        Throwable root = failure;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConfigurationException configuration) {
                return configuration;
            }
            root = cause;
        }
        ConfigurationException startFailed = new ConfigurationException(
                List.of("the rate limiter could not start: " + root));
        startFailed.initCause(failure);
        return startFailed;
    }

    /**
     * The problems of one class's {@code @RateLimited} methods, each naming the method and the property to set.
     * Each business method is read as the interceptor reads it ({@link RateLimitedMethod#of(Class, Method)}): with
     * this bean class, so a class-level binding covers the methods it inherits.
     *
     * @param resolverProblem why a named resolver is not exactly one bean; empty when it is
     */
    static List<String> check(Class<?> beanClass, LimiterSettings settings,
                              Function<RateLimitedMethod.ResolverName, Optional<String>> resolverProblem) {
        List<String> problems = new ArrayList<>();
        try {
            for (Method method : businessMethods(beanClass)) {
                try {
                    RateLimitedMethod.of(beanClass, method).ifPresent(rateLimited -> {
                        for (RateLimitedMethod.Limit limit : rateLimited.limits()) {
                            String where = "@RateLimited(bucket = \"" + limit.bucketName() + "\") on "
                                    + RateLimitedMethod.describe(beanClass, method);
                            Optional<Bucket> bucket = settings.bucket(limit.bucketName());
                            if (bucket.isEmpty()) {
                                problems.add(where + ": " + notConfigured(limit.bucketName()));
                            } else if (limit.cost() < 0 || limit.cost() > bucket.get().largestCost()) {
                                problems.add("@RateLimited(bucket = \"" + limit.bucketName() + "\", cost = "
                                        + limit.cost() + ") on " + RateLimitedMethod.describe(beanClass, method)
                                        + ": " + CallCosts.problem(bucket.get(), limit.cost()));
                            }
                            if (bucket.isPresent() && bucket.get().isConcurrency()) {
                                limit.concurrencyProblem().ifPresent(problem -> problems.add(where + ": " + problem));
                            }
                            if (bucket.isPresent() && limit.cost() >= 0) {
                                problems.addAll(planCosts(limit, settings, RateLimitedMethod.describe(beanClass,
                                        method)));
                            }
                            if (limit.resolver() != null) {
                                resolverProblem.apply(limit.resolver())
                                        .ifPresent(problem -> problems.add(where + ": " + problem));
                            }
                        }
                    });
                } catch (IllegalArgumentException e) {
                    problems.add(e.getMessage());
                }
            }
        } catch (LinkageError e) {
            // A class of the container whose optional dependencies are absent: it carries no @RateLimited.
        }
        return problems;
    }

    /**
     * Adds the largest cost each bucket's {@code @RateLimited} methods of one class count, which a reload must keep
     * allowing (docs/live-limits.md).
     */
    private static void staticCosts(Class<?> beanClass, Map<String, SettingsUpdate.StaticCost> costs) {
        try {
            for (Method method : businessMethods(beanClass)) {
                RateLimitedMethod.of(beanClass, method).ifPresent(rateLimited -> {
                    for (RateLimitedMethod.Limit limit : rateLimited.limits()) {
                        SettingsUpdate.StaticCost known = costs.get(limit.bucketName());
                        if (known == null || limit.cost() > known.cost()) {
                            costs.put(limit.bucketName(), new SettingsUpdate.StaticCost(limit.cost(),
                                    "@RateLimited(cost = " + limit.cost() + ") on "
                                            + RateLimitedMethod.describe(beanClass, method)));
                        }
                    }
                });
            }
        } catch (LinkageError | IllegalArgumentException e) {
            // checked above: a class the container cannot load carries no @RateLimited; a bad binding failed the start
        }
    }

    /**
     * The problems of the plan resolvers one class's {@code @RateLimited} methods name ({@code planResolver},
     * {@code planResolverName}): each that is not exactly one bean, naming the method (docs/plans.md).
     */
    private List<String> planResolvers(Class<?> beanClass, LimiterSettings settings) {
        List<String> problems = new ArrayList<>();
        try {
            for (Method method : businessMethods(beanClass)) {
                try {
                    RateLimitedMethod.of(beanClass, method).ifPresent(rateLimited -> {
                        for (RateLimitedMethod.Limit limit : rateLimited.limits()) {
                            Optional<Bucket> bucket = settings.bucket(limit.bucketName());
                            if (limit.planResolver() != null && bucket.isPresent()) {
                                try {
                                    plans.planner(bucket.get(), limit.planResolver());
                                } catch (IllegalArgumentException e) {
                                    problems.add("@RateLimited(bucket = \"" + limit.bucketName() + "\") on "
                                            + RateLimitedMethod.describe(beanClass, method) + ": " + e.getMessage());
                                }
                            }
                        }
                    });
                } catch (IllegalArgumentException e) {
                    // check() reports the binding's own problems
                }
            }
        } catch (LinkageError e) {
            // A class of the container whose optional dependencies are absent: it carries no @RateLimited.
        }
        return problems;
    }

    /**
     * A static cost that a declared plan of its bucket could never allow (docs/plans.md): a call under that plan
     * would be refused every time, so the deployment fails naming the method, the bucket, the plan and the plan's
     * property to raise. (The global filter counts 1 per request, which every plan's limit, at least 1, allows.)
     */
    static List<String> planCosts(RateLimitedMethod.Limit limit, LimiterSettings settings, String method) {
        List<String> problems = new ArrayList<>();
        settings.plans(limit.bucketName()).plans().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .filter(plan -> limit.cost() > plan.getValue().largestCost())
                .forEach(plan -> problems.add("@RateLimited(bucket = \"" + limit.bucketName() + "\", cost = "
                        + limit.cost() + ") on " + method + ": cost " + limit.cost() + " is above what plan '"
                        + plan.getKey() + "' of bucket '" + limit.bucketName() + "' allows a call, "
                        + plan.getValue().largestCost() + "; lower the cost, or raise "
                        + planProperty(plan.getValue())));
        return problems;
    }

    /** The plan's property that bounds its largest cost: its burst, or its (smallest) limit. */
    private static String planProperty(Bucket plan) {
        String base = "ratelimiter.buckets." + plan.name() + ".plans." + plan.plan() + ".";
        if (plan.isTokenBucket() && plan.burst() == plan.largestCost()) {
            return base + "burst";
        }
        return base + (plan.hasSeveralWindows() ? "limits" : "limit");
    }

    /**
     * The problems of one class's {@code @BucketName} injection points, its own and its superclasses' (fields, and
     * parameters of constructors and methods): each bucket that is not configured, naming the injection point and
     * the properties to set.
     */
    static List<String> injectedBuckets(Class<?> beanClass, LimiterSettings settings) {
        List<String> problems = new ArrayList<>();
        BiConsumer<BucketName, String> check = (name, where) -> {
            if (name != null && settings.bucket(name.value()).isEmpty()) {
                problems.add("@BucketName(\"" + name.value() + "\") on " + where + ": " + notConfigured(name.value()));
            }
        };
        try {
            for (Class<?> type = beanClass; type != null && type != Object.class; type = type.getSuperclass()) {
                for (Field field : type.getDeclaredFields()) {
                    check.accept(field.getAnnotation(BucketName.class), type.getName() + "." + field.getName());
                }
                List<Executable> executables = new ArrayList<>(List.of(type.getDeclaredConstructors()));
                executables.addAll(List.of(type.getDeclaredMethods()));
                for (Executable executable : executables) {
                    Parameter[] parameters = executable.getParameters();
                    for (int i = 0; i < parameters.length; i++) {
                        check.accept(parameters[i].getAnnotation(BucketName.class),
                                "parameter " + i + " of " + (executable instanceof Method method
                                        ? RateLimitedMethod.describe(method) : constructor(type, executable)));
                    }
                }
            }
        } catch (LinkageError e) {
            // A class of the container whose optional dependencies are absent: it injects no bucket.
        }
        return problems;
    }

    /**
     * The problems of one class's {@code @RateLimitedBy} (docs/openapi.md): each bucket it names that is not
     * configured, naming the class or method and the properties to set.
     */
    static List<String> documentedBuckets(Class<?> beanClass, LimiterSettings settings) {
        List<String> problems = new ArrayList<>();
        BiConsumer<RateLimitedBy, String> check = (documented, where) -> {
            if (documented != null) {
                for (String name : documented.value()) {
                    if (settings.bucket(name).isEmpty()) {
                        problems.add("@RateLimitedBy(\"" + name + "\") on " + where + ": " + notConfigured(name));
                    }
                }
            }
        };
        try {
            check.accept(beanClass.getAnnotation(RateLimitedBy.class), beanClass.getName());
            for (Method method : businessMethods(beanClass)) {
                check.accept(method.getAnnotation(RateLimitedBy.class), RateLimitedMethod.describe(beanClass, method));
            }
        } catch (LinkageError e) {
            // A class of the container whose optional dependencies are absent: it names no bucket.
        }
        return problems;
    }

    /** The bindings of a class no container would apply: logs the warnings, returns the errors. */
    private static List<String> unapplied(Class<?> beanClass) {
        try {
            UnappliedBindings unapplied = UnappliedBindings.of(beanClass);
            unapplied.warnings().forEach(warning -> LOG.log(System.Logger.Level.WARNING, warning));
            return unapplied.errors();
        } catch (LinkageError e) {
            return List.of(); // a class of the container whose optional dependencies are absent: no @RateLimited
        }
    }

    /** {@code com.example.Reports#Reports(RateLimitBucket)}, as {@link RateLimitedMethod#describe} names a method. */
    private static String constructor(Class<?> type, Executable constructor) {
        return type.getName() + "#" + type.getSimpleName() + "(" + Arrays.stream(constructor.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ")) + ")";
    }

    /** What to set for a bucket that is not configured. */
    private static String notConfigured(String name) {
        String base = "ratelimiter.buckets." + name;
        return "bucket '" + name + "' is not configured; set " + base + ".limit and " + base + ".window (or " + base
                + ".limits)";
    }

    /**
     * The methods an interceptor can see on {@code beanClass}: non-static, non-private, declared by it or a
     * superclass below {@code Object}, an overriding method in place of the one it overrides.
     */
    public static Collection<Method> businessMethods(Class<?> beanClass) {
        Map<String, Method> methods = new LinkedHashMap<>();
        for (Class<?> type = beanClass; type != null && type != Object.class; type = type.getSuperclass()) {
            for (Method method : type.getDeclaredMethods()) {
                int modifiers = method.getModifiers();
                if (method.isSynthetic() || method.isBridge() || Modifier.isStatic(modifiers)
                        || Modifier.isPrivate(modifiers)) {
                    continue;
                }
                methods.putIfAbsent(method.getName() + Arrays.toString(method.getParameterTypes()), method);
            }
        }
        return methods.values();
    }

    private Set<Class<?>> beanClasses() {
        Set<Class<?>> classes = new LinkedHashSet<>();
        Set<Bean<?>> seen = new HashSet<>(beans.getBeans(Object.class, Any.Literal.INSTANCE));
        for (Bean<?> bean : seen) {
            classes.add(bean.getBeanClass());
        }
        return classes;
    }
}
