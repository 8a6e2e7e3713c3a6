package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.util.Map;

/**
 * The example's scenarios on Payara Micro 7 with an {@code Application} whose {@code getClasses()} turns scanning
 * off and lists {@code RateLimiterFeature}: limited exactly like the example.
 */
class Payara7ListedApplicationIT extends PayaraExampleScenarios {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.listed(PayaraServers.TRUSTED);
    }

    @Override
    protected Map<String, String> scenariosNotRun() {
        return runOnly(IN_A_LISTED_APPLICATION, Map.of());
    }
}
