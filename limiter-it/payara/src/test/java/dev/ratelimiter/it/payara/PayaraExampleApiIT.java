package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApiScenarios;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.OpenApiScenarios;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;

/**
 * The example API's scenarios on Payara Micro with the in-memory backend, at the WAR's own context root, deployed
 * with a configuration profile active ({@link ExampleDeployments#PROFILES}), on the instance
 * {@link PayaraLiveLimitsIT} shares ({@link PayaraServers#MEMORY}); and the limits in the example's OpenAPI document
 * (docs/openapi.md), which Payara Micro 7 left out for an application not at {@code /} until the library read the
 * started application's limits there.
 */
class PayaraExampleApiIT extends ExampleApiScenarios {

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

    @Override
    protected String metricsPath() {
        return PayaraServers.METRICS;
    }

    @Test
    @DisplayName("mp.config.profile=it: the bucket under %it. exists, the one under %other. does not")
    void bucketsUnderProfiles() {
        assertBucketsUnderProfiles("profiled", "other-only");
    }

    @Test
    @DisplayName("/openapi shows the example's limits: login's and reports', the 429, 400 and the refusal's schema")
    void openApiDocument() throws Exception {
        OpenApiScenarios.assertExampleDocumented(baseUri().resolve("/openapi"), baseUri());
    }
}
