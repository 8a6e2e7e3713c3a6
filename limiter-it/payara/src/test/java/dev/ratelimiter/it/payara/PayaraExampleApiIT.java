package dev.ratelimiter.it.payara;

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
 * The example API's scenarios on Payara Micro with the in-memory backend, deployed with a configuration profile
 * active ({@link ExampleDeployments#PROFILES}).
 */
@ExtendWith(ArquillianExtension.class)
class PayaraExampleApiIT extends ExampleApiScenarios {

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
}
