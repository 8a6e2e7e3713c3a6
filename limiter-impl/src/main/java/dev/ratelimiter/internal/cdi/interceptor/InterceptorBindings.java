package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.inject.Stereotype;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@link RateLimited} bindings the container applies to one method of one bean class, by the rules of CDI 4.0
 * (§2.7.1.1, §9.1.1-9.1.3 and §4.1): a binding on the method replaces one on the class; the class's bindings
 * include those its superclasses declare ({@code @RateLimited} is {@code @Inherited}), those of its stereotypes
 * (and of theirs), and those declared by another interceptor binding it carries. The bean class, not the method's
 * declaring class, decides: a method inherited from an unannotated base is limited with the subclass's bucket.
 * A repeated {@code @RateLimited} (its container, {@link RateLimited.List}) gives its annotations in declaration
 * order, as Weld and ArC apply a repeatable binding.
 *
 * <p>Jakarta EE 10 offers no {@code InvocationContext.getInterceptorBindings()}, so the interceptor and the startup
 * check both ask this class, with the intercepted bean's class; annotations an extension adds to the bean's
 * {@code AnnotatedType} are not seen.
 */
public final class InterceptorBindings {

    private InterceptorBindings() {
    }

    /**
     * The bindings of {@code method} when called on an instance of {@code beanClass}, in declaration order; empty if
     * it has none.
     */
    public static List<RateLimited> rateLimited(Class<?> beanClass, Method method) {
        List<RateLimited> bindings = find(method.getAnnotations(), new HashSet<>(), false);
        if (bindings.isEmpty()) {
            // getAnnotations() includes the @Inherited annotations of superclasses (JLS §9.6.4.3).
            bindings = find(beanClass.getAnnotations(), new HashSet<>(), true);
        }
        return bindings;
    }

    /** Whether the binding of {@code method} is the method's own, not its class's. */
    public static boolean onMethod(Method method) {
        return !find(method.getAnnotations(), new HashSet<>(), false).isEmpty();
    }

    /** Whether {@code beanClass} carries a binding of its own, a superclass's or a stereotype's. */
    public static boolean onClass(Class<?> beanClass) {
        return !find(beanClass.getAnnotations(), new HashSet<>(), true).isEmpty();
    }

    private static List<RateLimited> find(Annotation[] annotations, Set<Class<?>> seen, boolean stereotypes) {
        for (Annotation annotation : annotations) {
            if (annotation instanceof RateLimited rateLimited) {
                return List.of(rateLimited);
            }
            if (annotation instanceof RateLimited.List repeated) {
                return List.of(repeated.value());
            }
        }
        for (Annotation annotation : annotations) {
            Class<? extends Annotation> type = annotation.annotationType();
            if (!seen.add(type)) {
                continue;
            }
            if (type.isAnnotationPresent(InterceptorBinding.class)
                    || stereotypes && type.isAnnotationPresent(Stereotype.class)) {
                List<RateLimited> transitive = find(type.getAnnotations(), seen, stereotypes);
                if (!transitive.isEmpty()) {
                    return transitive;
                }
            }
        }
        return List.of();
    }
}
