package dev.ratelimiter.it.liberty;

import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The example's scenarios on Open Liberty with an {@code Application} whose {@code getClasses()} turns scanning
 * off and lists {@code RateLimiterFeature}: limited exactly like the example.
 */
class LibertyListedApplicationIT extends LibertyExampleScenarios {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.listed("ratelimiter.trusted-proxies=127.0.0.1,::1\n");
    }
}
