package dev.ratelimiter.cdi;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.inject.Stereotype;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link RateLimited} binding the container applies to one method of one bean class, by the rules of CDI 4.0
 * (§2.7.1.1, §9.1.1-9.1.3 and §4.1): a binding on the method replaces one on the class; the class's bindings
 * include those its superclasses declare ({@code @RateLimited} is {@code @Inherited}), those of its stereotypes
 * (and of theirs), and those declared by another interceptor binding it carries. The bean class, not the method's
 * declaring class, decides: a method inherited from an unannotated base is limited with the subclass's bucket.
 *
 * <p>Jakarta EE 10 offers no {@code InvocationContext.getInterceptorBindings()}, so the interceptor and the startup
 * check both ask this class, with the intercepted bean's class; annotations an extension adds to the bean's
 * {@code AnnotatedType} are not seen.
 */
final class InterceptorBindings {

    private InterceptorBindings() {
    }

    /** The binding of {@code method} when called on an instance of {@code beanClass}; empty if it has none. */
    static Optional<RateLimited> rateLimited(Class<?> beanClass, Method method) {
        RateLimited binding = find(method.getAnnotations(), new HashSet<>(), false);
        if (binding == null) {
            // getAnnotations() includes the @Inherited annotations of superclasses (JLS §9.6.4.3).
            binding = find(beanClass.getAnnotations(), new HashSet<>(), true);
        }
        return Optional.ofNullable(binding);
    }

    private static RateLimited find(Annotation[] annotations, Set<Class<?>> seen, boolean stereotypes) {
        for (Annotation annotation : annotations) {
            if (annotation instanceof RateLimited rateLimited) {
                return rateLimited;
            }
        }
        for (Annotation annotation : annotations) {
            Class<? extends Annotation> type = annotation.annotationType();
            if (!seen.add(type)) {
                continue;
            }
            if (type.isAnnotationPresent(InterceptorBinding.class)
                    || stereotypes && type.isAnnotationPresent(Stereotype.class)) {
                RateLimited transitive = find(type.getAnnotations(), seen, stereotypes);
                if (transitive != null) {
                    return transitive;
                }
            }
        }
        return null;
    }
}
