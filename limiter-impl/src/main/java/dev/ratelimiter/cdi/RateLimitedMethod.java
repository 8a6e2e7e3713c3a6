package dev.ratelimiter.cdi;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What {@link RateLimited} asks of one method of one bean class: the bucket's name (from the binding the container
 * applies, see {@link InterceptorBindings}), the {@link RateLimitKey} parameter, if any, and how the method
 * delivers its result.
 *
 * @param bucketName    the bucket to count in
 * @param keyParameter  the index of the {@code @RateLimitKey} parameter, or -1 to key by the request's identity
 * @param normalization the key's normalization ({@code NONE} without a key parameter)
 * @param result        how a refusal is delivered and when the attempt is counted
 * @param cost          attempts each call counts ({@link RateLimited#cost()}); checked against the bucket at
 *                      startup by {@link StartupValidator}
 */
public record RateLimitedMethod(String bucketName, int keyParameter, KeyNormalization normalization,
                                ResultType result, long cost) {

    /**
     * Reads the rate-limit binding of {@code method} as called on an instance of {@code beanClass}.
     *
     * @param beanClass the bean class the container intercepts (a subclass of the method's declaring class, or it)
     * @param method    a business method of that class
     * @return empty if neither the method nor the bean class (its superclasses, its stereotypes) is
     *         {@code @RateLimited}
     * @throws IllegalArgumentException naming the method, if a {@code @RateLimitKey} is not on a
     *                                  {@link CharSequence} parameter or appears more than once
     */
    public static Optional<RateLimitedMethod> of(Class<?> beanClass, Method method) {
        Optional<RateLimited> binding = InterceptorBindings.rateLimited(beanClass, method);
        if (binding.isEmpty()) {
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
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(describe(beanClass, method) + ": " + String.join("; ", problems));
        }
        return Optional.of(new RateLimitedMethod(binding.get().bucket(), keyParameter, normalization,
                ResultType.of(method), binding.get().cost()));
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
