package dev.ratelimiter.internal.core.decision;

import java.time.InstantSource;

/**
 * Where {@link RateLimitDecider} finds the chain it decides with and the clock: the runtime that builds the chain
 * answers (in a server, the CDI layer's {@code LimiterRuntime}).
 */
public interface DecisionSource {

    /**
     * What one decision needs, in one call: behind a CDI client proxy each call looks up the bean's context (on
     * Payara a class-loader keyed look-up of the container), so the decider asks once per decision rather than once
     * per part (docs/architecture.md#the-path-of-a-request). Built on first use.
     *
     * @throws dev.ratelimiter.spi.ConfigurationException if the chain is built now and the settings or the store
     *                                                    cannot work
     */
    DecisionPath path();

    /** The library's clock: how long ago a call was decided, for a refund (docs/guide.md#counting-failures-only). */
    InstantSource clock();
}
