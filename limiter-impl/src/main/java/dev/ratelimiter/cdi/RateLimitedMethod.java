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
 * What {@link RateLimited} asks of one method: the bucket's name (the method's annotation, else its class's),
 * and the {@link RateLimitKey} parameter, if any.
 *
 * @param bucketName    the bucket to count in
 * @param keyParameter  the index of the {@code @RateLimitKey} parameter, or -1 to key by the request's identity
 * @param normalization the key's normalization ({@code NONE} without a key parameter)
 */
public record RateLimitedMethod(String bucketName, int keyParameter, KeyNormalization normalization) {

    /**
     * Reads a method's rate-limit binding.
     *
     * @param method a method of a bean class
     * @return empty if neither the method nor its declaring class (or a superclass) is {@code @RateLimited}
     * @throws IllegalArgumentException naming the method, if a {@code @RateLimitKey} is not on a
     *                                  {@link CharSequence} parameter or appears more than once
     */
    public static Optional<RateLimitedMethod> of(Method method) {
        RateLimited binding = method.getAnnotation(RateLimited.class);
        if (binding == null) {
            binding = method.getDeclaringClass().getAnnotation(RateLimited.class);
        }
        if (binding == null) {
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
            throw new IllegalArgumentException(describe(method) + ": " + String.join("; ", problems));
        }
        return Optional.of(new RateLimitedMethod(binding.bucket(), keyParameter, normalization));
    }

    /** {@code com.example.LoginService#login(String, String)}, for messages. */
    public static String describe(Method method) {
        return method.getDeclaringClass().getName() + "#" + method.getName() + "("
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(", ")) + ")";
    }
}
