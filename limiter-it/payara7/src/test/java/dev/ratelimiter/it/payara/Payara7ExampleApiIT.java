package dev.ratelimiter.it.payara;

import java.util.Map;

/**
 * {@link PayaraExampleApiIT} on Payara Micro 7: the example API in memory at the WAR's own context root,
 * configuration profiles, and the limits in the OpenAPI document, which Payara 7 left out for an application not at
 * {@code /} until the library read the started application's limits there.
 */
class Payara7ExampleApiIT extends PayaraExampleApiIT {

    /** {@link #WAITS_ELSEWHERE}: the burst window's wait runs on Payara Micro 6 and Open Liberty. */
    @Override
    protected Map<String, String> scenariosNotRun() {
        return WAITS_ELSEWHERE;
    }
}
