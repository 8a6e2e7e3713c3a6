package dev.ratelimiter.internal.cdi.interceptor;

import jakarta.enterprise.context.ApplicationScoped;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Logs, once, that a {@code @RateLimited} call keyed by the request's identity (no {@code @RateLimitKey}, or
 * {@code key = PRINCIPAL} or {@code CLIENT_ADDRESS}) ran in a request the library's
 * JAX-RS filter never saw. The usual cause is an {@code Application} whose {@code getClasses()} or
 * {@code getSingletons()} is not empty, which turns off provider scanning (Jakarta REST 3.1 §2.3.2): then neither
 * the global limit nor the identity the interceptor keys by exists, and every such call fails.
 */
@ApplicationScoped
public class UnfilteredRequestWarner {

    /** The feature that registers the library's providers, named in the message. */
    static final String FEATURE = "dev.ratelimiter.jaxrs.RateLimiterFeature";

    private static final System.Logger LOG = System.getLogger(UnfilteredRequestWarner.class.getName());

    private final AtomicBoolean reported = new AtomicBoolean();

    /** Logs the error naming {@code method} and the fix, the first time only. */
    public void report(Class<?> beanClass, Method method) {
        if (reported.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.ERROR, message(beanClass, method));
        }
    }

    /** What went wrong and what to change, for the log and the exception the call fails with. */
    static String message(Class<?> beanClass, Method method) {
        return RateLimitedMethod.describe(beanClass, method) + " is @RateLimited with a key from the request's "
                + "identity (principal or client address) and was called in a request that the rate limiter's JAX-RS filter did not see, so there is no principal "
                + "or client address to key it by (and no global limit). If the application's Application subclass "
                + "lists its classes (getClasses() or getSingletons()), add " + FEATURE + " to them; outside HTTP, "
                + "give the method a @RateLimitKey parameter.";
    }
}
