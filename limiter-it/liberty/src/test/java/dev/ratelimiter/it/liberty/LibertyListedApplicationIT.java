package dev.ratelimiter.it.liberty;

import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * The example API's scenarios, every one, on Open Liberty with the in-memory backend and an {@code Application} whose
 * {@code getClasses()} turns scanning off and lists {@code RateLimiterFeature} ({@code ListedApplication}): limited
 * exactly like the example. Deployed with a configuration profile active ({@link ExampleDeployments#PROFILES}).
 *
 * <p>The example as it is (scanning) runs every scenario on this server in {@link LibertyPostgresExampleApiIT}; in
 * memory, on WildFly, Payara and Quarkus, so a second in-memory run here would repeat theirs.
 */
class LibertyListedApplicationIT extends LibertyExampleScenarios {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.listed("ratelimiter.trusted-proxies=127.0.0.1,::1\n" + ExampleDeployments.PROFILES);
    }

    @Test
    @DisplayName("mp.config.profile=it: the bucket under %it. exists, the one under %other. does not")
    void bucketsUnderProfiles() {
        assertBucketsUnderProfiles("profiled", "other-only");
    }

    @Override
    protected Map<String, String> scenariosNotRun() {
        return runOnly(IN_A_LISTED_APPLICATION, Map.of());
    }
}
