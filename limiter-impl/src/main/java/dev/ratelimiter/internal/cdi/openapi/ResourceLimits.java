package dev.ratelimiter.internal.cdi.openapi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitedBy;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethod;
import dev.ratelimiter.internal.cdi.startup.StartupValidator;
import dev.ratelimiter.internal.core.settings.BucketPlans;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanContainer;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The limits of the application's JAX-RS operations, as the OpenAPI document shows them (docs/openapi.md): the
 * resource methods of the application's beans that carry {@code @RateLimited} (read as the interceptor reads them,
 * {@link RateLimitedMethod#of}) or {@code @RateLimitedBy}, each with its HTTP method and its path below the
 * application's path, and the global filter's prefixes and buckets. Read from the settings in force when asked,
 * so a document built after a reload shows the reloaded limits (docs/live-limits.md).
 *
 * <p>A resource method is found as JAX-RS finds it: an HTTP method annotation ({@code @GET}, or any annotation
 * carrying {@link HttpMethod}) on the method or on the method it overrides or implements, the class's {@code @Path}
 * (or its superclass's or interface's) and the method's. Sub-resource locators are not followed.
 */
@ApplicationScoped
public class ResourceLimits {

    @Inject
    LimiterConfiguration configuration;

    @Inject
    BeanContainer beans;

    /** The limits to show, or {@link DocumentedLimits#NONE} when the limiter or its OpenAPI part is off. */
    public DocumentedLimits limits() {
        LimiterSettings settings = configuration.settings();
        if (!settings.enabled() || !settings.openApi()) {
            return DocumentedLimits.NONE;
        }
        List<DocumentedLimits.Limit> global = new ArrayList<>();
        if (settings.globalLimit()) {
            String anonymousKey = settings.keyResolver().isPresent() ? "resolver, client-address" : "client-address";
            String authenticatedKey = settings.keyResolver().isPresent() ? "resolver, principal" : "principal";
            settings.bucket(LimiterSettings.API_AUTHENTICATED).ifPresent(bucket -> global.add(
                    limit(settings, bucket, "global", authenticatedKey, false, null)));
            settings.bucket(LimiterSettings.API_ANONYMOUS).ifPresent(bucket -> global.add(
                    limit(settings, bucket, "global", anonymousKey, false, null)));
        }
        List<DocumentedLimits.Operation> operations = new ArrayList<>();
        for (Class<?> beanClass : beanClasses()) {
            if (!beanClass.isAnnotationPresent(Interceptor.class)) {
                operations.addAll(operations(beanClass, settings));
            }
        }
        return new DocumentedLimits(true, settings.globalLimit() ? settings.pathPrefixes() : List.of(), global,
                operations, settings.headerFields());
    }

    /** The operations of one bean class that a bucket limits; none for a class that is no JAX-RS resource. */
    static List<DocumentedLimits.Operation> operations(Class<?> beanClass, LimiterSettings settings) {
        List<DocumentedLimits.Operation> operations = new ArrayList<>();
        try {
            Optional<String> classPath = classPath(beanClass);
            if (classPath.isEmpty()) {
                return operations;
            }
            for (Method method : StartupValidator.businessMethods(beanClass)) {
                Optional<String> httpMethod = httpMethod(beanClass, method);
                if (httpMethod.isEmpty()) {
                    continue; // a sub-resource locator or no resource method
                }
                List<DocumentedLimits.Limit> limits = limits(beanClass, method, settings);
                if (!limits.isEmpty()) {
                    String path = join(classPath.get(), annotation(beanClass, method, Path.class)
                            .map(Path::value).orElse(""));
                    operations.add(new DocumentedLimits.Operation(httpMethod.get(), path,
                            RateLimitedMethod.describe(beanClass, method), limits));
                }
            }
        } catch (LinkageError | IllegalArgumentException e) {
            // a class the container cannot load carries no binding; a bad binding already failed the start
        }
        return operations;
    }

    private static List<DocumentedLimits.Limit> limits(Class<?> beanClass, Method method, LimiterSettings settings) {
        List<DocumentedLimits.Limit> limits = new ArrayList<>();
        RateLimitedMethod.of(beanClass, method).ifPresent(rateLimited -> {
            for (RateLimitedMethod.Limit limit : rateLimited.limits()) {
                settings.bucket(limit.bucketName()).ifPresent(bucket -> {
                    List<RateLimitedMethod.KeySource> sources = Stream.concat(Stream.of(limit.source()),
                            limit.fallback().stream()).toList();
                    RateLimitedMethod.KeySource last = sources.get(sources.size() - 1);
                    boolean mayBeMissing = last == RateLimitedMethod.KeySource.RESOLVER
                            || last == RateLimitedMethod.KeySource.PRINCIPAL;
                    String key = sources.stream().map(source -> source.name().toLowerCase(Locale.ROOT)
                            .replace('_', '-')).collect(Collectors.joining(", "));
                    String planResolver = limit.planResolver() == null ? null
                            : limit.planResolver().type() != null ? limit.planResolver().type().getName()
                            : limit.planResolver().name();
                    limits.add(limit(settings, bucket, "RateLimited", key, mayBeMissing, planResolver));
                });
            }
        });
        RateLimitedBy documented = method.getAnnotation(RateLimitedBy.class);
        if (documented == null) {
            documented = beanClass.getAnnotation(RateLimitedBy.class);
        }
        if (documented != null) {
            for (String name : documented.value()) {
                settings.bucket(name).ifPresent(bucket -> limits.add(
                        limit(settings, bucket, "RateLimitedBy", null, false, null)));
            }
        }
        return limits;
    }

    private static DocumentedLimits.Limit limit(LimiterSettings settings, Bucket bucket, String source, String key,
                                                boolean keyMayBeMissing, String planResolver) {
        BucketPlans plans = settings.plans(bucket.name());
        return new DocumentedLimits.Limit(bucket, source, key, keyMayBeMissing, plans.plans(),
                planResolver != null ? planResolver : plans.resolver().orElse(null));
    }

    /** The class's {@code @Path}, its own or its superclasses' or interfaces'; empty for no resource class. */
    private static Optional<String> classPath(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            Path path = c.getAnnotation(Path.class);
            if (path != null) {
                return Optional.of(path.value());
            }
            for (Class<?> implemented : c.getInterfaces()) {
                Path onInterface = implemented.getAnnotation(Path.class);
                if (onInterface != null) {
                    return Optional.of(onInterface.value());
                }
            }
        }
        return Optional.empty();
    }

    /** The method's HTTP method, from it or the method it overrides or implements (JAX-RS 3.1 §3.6). */
    private static Optional<String> httpMethod(Class<?> beanClass, Method method) {
        for (Method candidate : overridden(beanClass, method)) {
            for (Annotation annotation : candidate.getAnnotations()) {
                HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
                if (http != null) {
                    return Optional.of(http.value().toUpperCase(Locale.ROOT));
                }
            }
        }
        return Optional.empty();
    }

    /** An annotation of the method, or of the first method it overrides or implements that carries it. */
    private static <A extends Annotation> Optional<A> annotation(Class<?> beanClass, Method method, Class<A> type) {
        for (Method candidate : overridden(beanClass, method)) {
            A annotation = candidate.getAnnotation(type);
            if (annotation != null) {
                return Optional.of(annotation);
            }
        }
        return Optional.empty();
    }

    /** The method, then the methods of the same signature in its class's superclasses and interfaces. */
    private static List<Method> overridden(Class<?> beanClass, Method method) {
        Set<Method> methods = new LinkedHashSet<>();
        methods.add(method);
        for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
            Set<Class<?>> types = new LinkedHashSet<>();
            types.add(c);
            types.addAll(List.of(c.getInterfaces()));
            for (Class<?> type : types) {
                try {
                    methods.add(type.getDeclaredMethod(method.getName(), method.getParameterTypes()));
                } catch (NoSuchMethodException e) {
                    // not declared there
                }
            }
        }
        return List.copyOf(methods);
    }

    /**
     * {@code /projects/{id}} from {@code projects} and {@code {id: \\d+}}: one {@code /} between segments, a leading
     * one, no trailing one, each template's regular expression dropped (the OpenAPI document names only the
     * parameter).
     */
    static String join(String classPath, String methodPath) {
        return "/" + Stream.of(classPath, methodPath)
                .map(part -> part.replaceAll("\\{\\s*([^}:\\s]+)\\s*(:[^}]*)?}", "{$1}"))
                .flatMap(part -> Stream.of(part.split("/")))
                .filter(segment -> !segment.isEmpty())
                .collect(Collectors.joining("/"));
    }

    private Set<Class<?>> beanClasses() {
        Set<Class<?>> classes = new LinkedHashSet<>();
        for (Bean<?> bean : beans.getBeans(Object.class, Any.Literal.INSTANCE)) {
            classes.add(bean.getBeanClass());
        }
        return classes;
    }
}
