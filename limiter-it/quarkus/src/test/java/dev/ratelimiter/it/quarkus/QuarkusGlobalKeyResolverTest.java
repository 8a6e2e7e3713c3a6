package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.it.GlobalKeyResolverScenarios;
import dev.ratelimiter.it.OpenApiScenarios;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.util.Map;

/**
 * The global filter keyed by the example's tenant resolver, on Quarkus (ArC finds the @Named bean), and the limits in
 * the OpenAPI document that quarkus-smallrye-openapi builds at build time and filters at startup (docs/openapi.md).
 */
@QuarkusTest
@TestProfile(QuarkusGlobalKeyResolverTest.TenantKeys.class)
class QuarkusGlobalKeyResolverTest extends GlobalKeyResolverScenarios {

    /** {@link GlobalKeyResolverScenarios#CONFIG} as a configuration override. */
    public static class TenantKeys implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ratelimiter.api.key-resolver", "tenant");
        }
    }

    @TestHTTPResource("/")
    URL root;

    @Override
    protected URI baseUri() {
        try {
            return root.toURI();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @DisplayName("/q/openapi shows the example's limits: login's and reports', the 429, 400 and the refusal's schema")
    void openApiDocument() throws Exception {
        OpenApiScenarios.assertExampleDocumented(baseUri().resolve("/q/openapi"), baseUri());
    }
}
