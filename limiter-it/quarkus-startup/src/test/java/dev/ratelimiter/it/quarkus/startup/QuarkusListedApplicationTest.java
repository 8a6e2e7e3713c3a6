package dev.ratelimiter.it.quarkus.startup;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleApiScenarios;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.app.ItemsResource;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URISyntaxException;
import java.net.URL;

/**
 * On Quarkus, an {@code Application} whose {@code getClasses()} lists its resources and
 * {@code RateLimiterFeature}: the global limit and the {@code @RateLimited} resources are limited as in the
 * example.
 */
class QuarkusListedApplicationTest {

    // Flat class path: see QuarkusStartupValidationTest.
    @RegisterExtension
    static final QuarkusUnitTest APPLICATION = new QuarkusUnitTest()
            .setFlatClassPath(true)
            .withApplicationRoot(jar -> jar
                    .addClasses(ListedApplication.class, PingResource.class, TenantHeaderResolver.class)
                    .addPackage(ItemsResource.class.getPackage())
                    .addAsResource(new StringAsset("""
                            ratelimiter.buckets.imports.limit=3
                            ratelimiter.buckets.imports.window=PT1H
                            ratelimiter.trusted-proxies=127.0.0.1,::1
                            """ + ExampleDeployments.SCENARIO_CONFIG), "application.properties"));

    @TestHTTPResource("/")
    URL root;

    private ExampleApi client() {
        try {
            return ExampleApi.newClient(root.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @DisplayName("120 anonymous GET /api/ping are allowed, the 121st is 429: the feature registered the global filter")
    void globalLimit() {
        ExampleApiScenarios.assertRefusedAfter(client(), "api/ping", "api-anonymous", 120);
    }

    @Test
    @DisplayName("a @RateLimited resource keyed by the request's identity: 200, 200, 200, then 429 in bucket imports")
    void limitedByIdentity() {
        ExampleApiScenarios.assertRefusedAfter(client(), "api/items", "imports", 3);
    }

    @Test
    @DisplayName("a CompletionStage resource method: 3 allowed, then 429 with the RateLimit headers")
    void completionStage() {
        ExampleApiScenarios.assertRefusedAfter(client(), "api/async/stage", "imports", 3);
    }
}
