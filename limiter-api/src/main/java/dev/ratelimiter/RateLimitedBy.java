package dev.ratelimiter;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the buckets a resource method's calls count in through a bean it calls, so that the application's OpenAPI
 * document shows them on the method's operation: {@code @RateLimitedBy({"login-address", "login"})} on
 * {@code POST /api/login}, whose {@code LoginService.login} carries the two {@code @RateLimited}
 * (docs/openapi.md#limits-counted-in-a-bean-the-resource-calls).
 *
 * <p>It documents and never counts: the bean's {@link RateLimited} counts, once per call. The OpenAPI document
 * cannot follow a resource method into the beans it calls, so without it the operation shows only the limits of its
 * own {@code @RateLimited} and the global filter. The deployment fails at startup when a named bucket is not
 * configured, with a message naming the method and the properties to set, as for {@link RateLimited#bucket()}. On a
 * class, it applies to each of the class's resource methods; on a method, it replaces the class's.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface RateLimitedBy {

    /**
     * The buckets the calls count in, as in {@code ratelimiter.buckets.<name>.*}, in the order the beans decide them.
     *
     * @return configured buckets' names, at least one
     */
    String[] value();
}
