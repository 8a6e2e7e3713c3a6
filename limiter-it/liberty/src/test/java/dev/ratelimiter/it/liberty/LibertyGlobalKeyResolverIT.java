package dev.ratelimiter.it.liberty;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.GlobalKeyResolverScenarios;
import dev.ratelimiter.it.OpenApiScenarios;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;

/**
 * The global filter keyed by the example's tenant resolver, on Open Liberty, and the limits in its OpenAPI
 * document (docs/openapi.md).
 */
@ExtendWith(ArquillianExtension.class)
class LibertyGlobalKeyResolverIT extends GlobalKeyResolverScenarios {

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n" + CONFIG);
    }

    @Override
    protected URI baseUri() {
        return ExampleDeployments.loopback(deployment);
    }

    @Test
    @DisplayName("/openapi shows the example's limits: login's and reports', the 429, 400 and the refusal's schema")
    void openApiDocument() throws Exception {
        OpenApiScenarios.assertExampleDocumented(baseUri().resolve("/openapi"), baseUri());
    }
}
