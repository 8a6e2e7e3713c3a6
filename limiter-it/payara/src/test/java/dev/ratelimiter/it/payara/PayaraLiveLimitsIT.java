package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.LiveLimitsScenarios;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;

/**
 * Limits changed while Payara Micro runs, through the reload file ({@link LiveLimitsScenarios}), on the instance
 * {@link PayaraExampleApiIT} shares ({@link PayaraServers#MEMORY}): only bucket {@code live} changes, which no
 * other scenario uses.
 */
class PayaraLiveLimitsIT extends LiveLimitsScenarios {

    @RegisterExtension
    static final SharedMicro SERVER = PayaraServers.MEMORY;

    @Override
    protected URI baseUri() {
        return SERVER.root(PayaraServers.EXAMPLE);
    }

    @Override
    protected String readinessPath() {
        return PayaraServers.READINESS;
    }
}
