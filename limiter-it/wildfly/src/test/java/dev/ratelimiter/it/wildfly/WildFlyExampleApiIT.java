package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * The example API's scenarios, every one but {@link #WAITS_ELSEWHERE}'s, on WildFly 39 with the in-memory backend:
 * the example as it is, with only the scenarios' test configuration added and a configuration profile active
 * ({@link ExampleDeployments#PROFILES}); readiness and metrics on the management interface
 * ({@link WildFlyManagement}).
 */
class WildFlyExampleApiIT extends WildFlyExampleScenarios {

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

    /** {@link #WAITS_ELSEWHERE}: the burst window's wait runs on Payara Micro 6 and Open Liberty. */
    @Override
    protected Map<String, String> scenariosNotRun() {
        return WAITS_ELSEWHERE;
    }
}
