package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.GlobalKeyResolverScenarios;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;

/**
 * The global filter keyed by the example's tenant resolver, on Payara Micro 7, on the instance
 * {@link Payara7StartFailureIT} shares ({@link PayaraServers#KEYED_AND_FAILING}).
 */
class Payara7GlobalKeyResolverIT extends GlobalKeyResolverScenarios {

    @RegisterExtension
    static final SharedMicro SERVER = PayaraServers.KEYED_AND_FAILING;

    @Override
    protected URI baseUri() {
        return SERVER.root();
    }
}
