package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.util.Map;

/**
 * The example API's scenarios on WildFly with an {@code Application} whose {@code getClasses()} lists the
 * library's feature and turns RESTEasy's scanning off ({@code ListedApplication}).
 */
class WildFlyListedApplicationIT extends WildFlyExampleScenarios {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.listed("ratelimiter.trusted-proxies=127.0.0.1,::1\n");
    }

    @Override
    protected Map<String, String> scenariosNotRun() {
        return runOnly(IN_A_LISTED_APPLICATION, Map.of());
    }
}
