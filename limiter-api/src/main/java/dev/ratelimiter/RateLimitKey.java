package dev.ratelimiter;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the one parameter of a {@link RateLimited} method whose value is the key. The parameter must be a
 * {@link CharSequence} (usually a {@code String}); on any other type, or on more than one parameter, the
 * deployment fails with a message naming the method. A {@code null} argument counts as the empty key.
 *
 * <p>Put it on a service method that takes the login as a string, not on a resource method that takes a JSON
 * body.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface RateLimitKey {

    /** {@return how the value is normalized before it is hashed and counted} */
    KeyNormalization normalize() default KeyNormalization.NONE;
}
