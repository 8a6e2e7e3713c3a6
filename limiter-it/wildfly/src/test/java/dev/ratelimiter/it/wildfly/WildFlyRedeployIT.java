package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.redeploy.RedeployCheck;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedeployCheck} (the example on PostgreSQL, with the library's own pool) on WildFly, whose Micrometer
 * registries belong to the server and so outlive every deployment: the library's meters there are removed when the
 * application stops ({@code MicrometerMetricsRecorder.close}), else a gauge would keep calling into an undeployed
 * application and the next deployment would get the old meters.
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyRedeployIT {

    private static final String NAME = "redeploy";

    // Made by the deployment method, which Arquillian calls before anything of the class runs.
    private static RedeployCheck check;

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = NAME, managed = false, testable = false)
    static WebArchive deployment() {
        check = new RedeployCheck();
        return check.deployment("ROOT.war");
    }

    @AfterAll
    static void dropSchema() {
        if (check != null) {
            check.close();
        }
    }

    @Test
    @DisplayName("10 redeploys leave no class loader, thread or connection; /prometheus then has one degraded series, "
            + "the last deployment's, at 0")
    void redeploysLeaveNothing() throws SQLException {
        URI root = URI.create("http://127.0.0.1:" + System.getProperty("wildfly.http.port") + "/");
        deployer.deploy(NAME);
        try {
            check.assertNothingLeftBehind(root, () -> {
                deployer.undeploy(NAME);
                deployer.deploy(NAME);
            });
            String body = ExampleApi.newClient(root).get(WildFlyManagement.prometheus()).body();
            Matcher degraded = Pattern.compile("(?m)^rate_limiter_degraded\\{[^}]*} (\\S+)$").matcher(body);
            assertThat(degraded.find()).as("a degraded series in:%n%s", body).isTrue();
            assertThat(degraded.group(1)).isEqualTo("0.0");
            assertThat(degraded.find()).as("a second degraded series in:%n%s", body).isFalse();
        } finally {
            deployer.undeploy(NAME);
        }
    }
}
