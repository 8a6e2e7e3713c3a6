package dev.ratelimiter.contract;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The capabilities a contract case needs, on a class of cases (every case in it needs them) or on one case (it needs
 * them as well): the case runs against a store whose {@link RateLimiterContract#capabilities()} hold every one, and
 * is reported as skipped, naming the one missing, against any other. A case without it is part of the core every
 * store runs.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Requires {

    /** @return one or more capabilities */
    Capability[] value();
}
