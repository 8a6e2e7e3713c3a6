package dev.ratelimiter.internal.cdi.beans;

import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.RateLimitNearLimit;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Produces;

/**
 * Makes core's {@link RateLimitDecider} the one decider bean of the application, on {@link LimiterRuntime}'s chain,
 * with each denial fired as the CDI event {@link RateLimitDenied} and each call that takes a key near a window's limit as
 * {@link RateLimitNearLimit}. Application scoped, so the
 * interceptor, the global filter and the facades share it through a client proxy, as they would a bean class. The
 * runtime and the configuration are handed over as their client proxies, each called directly, so a decision looks
 * up no more bean contexts than it did when the decider was a bean class (docs/architecture.md#the-path-of-a-request).
 */
@ApplicationScoped
public class DeciderProducer {

    @Produces
    @ApplicationScoped
    RateLimitDecider decider(LimiterRuntime runtime, LimiterConfiguration configuration,
                             Event<RateLimitDenied> denials, Event<RateLimitNearLimit> nearLimits) {
        return new RateLimitDecider(runtime, configuration::settings, denials::fire, nearLimits::fire);
    }
}
