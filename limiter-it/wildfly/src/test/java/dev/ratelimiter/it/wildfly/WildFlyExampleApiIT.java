package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleApiScenarios;
import dev.ratelimiter.it.ExampleDeployments;
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
 * The example API's scenarios, every one, on WildFly 39 with the in-memory backend: the example as it is, with
 * only the scenarios' test configuration added and a configuration profile active
 * ({@link ExampleDeployments#PROFILES}); readiness and metrics on the management interface
 * ({@link WildFlyManagement}).
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyExampleApiIT extends ExampleApiScenarios {

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.example(
                "ratelimiter.trusted-proxies=127.0.0.1,::1\n" + ExampleDeployments.PROFILES);
    }

    @Test
    @DisplayName("mp.config.profile=it: the bucket under %it. exists, the one under %other. does not")
    void bucketsUnderProfiles() {
        assertBucketsUnderProfiles("profiled", "other-only");
    }

    @Override
    protected URI baseUri() {
        return ExampleDeployments.loopback(deployment);
    }

    /** RESTEasy answers OPTIONS for a resource without an {@code @OPTIONS} method before post-matching filters. */
    @Override
    protected boolean optionsReachFilters() {
        return false;
    }

    @Override
    protected String readinessPath() {
        return WildFlyManagement.readiness();
    }

    @Override
    protected String metricsPath() {
        return WildFlyManagement.prometheus();
    }
}
