package dev.ratelimiter.internal.cdi.startup;

import dev.ratelimiter.internal.cdi.interceptor.InterceptorBindings;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethod;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code @RateLimited} bindings of a bean class that a container would not apply, or that only some
 * containers would. Weld (Payara, Open Liberty) silently intercepts neither private nor static methods, and refuses
 * a final one; ArC (Quarkus) refuses a private one at build time, intercepts a static one that carries its own
 * binding, and removes {@code final} to intercept a final one. One rule for every server, so that an application
 * counts the same calls wherever it runs (docs/guide.md#where-ratelimited-applies):
 *
 * <ul>
 *   <li>a binding on a private, static or final method fails the deployment;</li>
 *   <li>a binding on a class fails it when the class is final or has a final method the binding would cover (a
 *       non-private, non-static one below {@code Object});</li>
 *   <li>a binding on a class is warned about for each of its non-private static methods, which no container
 *       counts under a class's binding. Private methods are not the class's business methods: a call of one is
 *       never intercepted, which the guide says.</li>
 * </ul>
 *
 * @param errors   what fails the deployment, each naming the method and what to change
 * @param warnings what is only logged, each naming the method
 */
record UnappliedBindings(List<String> errors, List<String> warnings) {

    /** What {@code beanClass}'s bindings would not cover, its own methods and those it inherits. */
    static UnappliedBindings of(Class<?> beanClass) {
        List<String> errors = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        boolean onClass = InterceptorBindings.onClass(beanClass);
        if (onClass && Modifier.isFinal(beanClass.getModifiers())) {
            errors.add("@RateLimited on " + beanClass.getName() + ", a final class: Payara and Open Liberty (Weld) "
                    + "cannot intercept its methods, so they would be counted on Quarkus only; remove final from "
                    + "the class");
        }
        Set<String> overridden = new HashSet<>();
        for (Class<?> type = beanClass; type != null && type != Object.class; type = type.getSuperclass()) {
            for (Method method : type.getDeclaredMethods()) {
                int modifiers = method.getModifiers();
                boolean overridable = !Modifier.isStatic(modifiers) && !Modifier.isPrivate(modifiers);
                if (method.isSynthetic() || method.isBridge() || overridable && !overridden.add(signature(method))) {
                    continue; // a subclass's override was read already
                }
                String where = RateLimitedMethod.describe(beanClass, method);
                if (InterceptorBindings.onMethod(method)) {
                    if (Modifier.isPrivate(modifiers)) {
                        errors.add("@RateLimited on " + where + ", a private method: no container intercepts a "
                                + "private method, so its calls would never be counted; make it package-private, "
                                + "protected or public, and call it on the bean, not on this");
                    } else if (Modifier.isStatic(modifiers)) {
                        errors.add("@RateLimited on " + where + ", a static method: Payara and Open Liberty (Weld) "
                                + "never intercept a static method, so it would be counted on Quarkus only; make "
                                + "it an instance method of the bean");
                    } else if (Modifier.isFinal(modifiers)) {
                        errors.add("@RateLimited on " + where + ", a final method: Payara and Open Liberty (Weld) "
                                + "cannot intercept it, so it would be counted on Quarkus only; remove final");
                    }
                } else if (onClass && !Modifier.isPrivate(modifiers)) {
                    if (Modifier.isStatic(modifiers)) {
                        warnings.add(where + " is static: the @RateLimited of " + beanClass.getName() + " does not "
                                + "apply to it on any server, so its calls are not counted");
                    } else if (Modifier.isFinal(modifiers)) {
                        errors.add("@RateLimited on " + beanClass.getName() + " covers " + where + ", a final "
                                + "method: Payara and Open Liberty (Weld) cannot intercept it, so it would be counted "
                                + "on Quarkus only; remove final");
                    }
                }
            }
        }
        return new UnappliedBindings(List.copyOf(errors), List.copyOf(warnings));
    }

    private static String signature(Method method) {
        return method.getName() + Arrays.toString(method.getParameterTypes());
    }
}
