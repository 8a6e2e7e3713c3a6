package dev.ratelimiter.it.liberty.mp7;

import dev.ratelimiter.it.liberty.LibertyPostgresOverride;
import dev.ratelimiter.it.liberty.LibertyRedeployIT;
import dev.ratelimiter.it.liberty.ServerLog;
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
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedeployCheck} on the MicroProfile 7 server, whose OpenTelemetry SDK belongs to the server and so outlives
 * every deployment: a gauge callback the library left registered would hold each undeployed application's class
 * loader, and call into the stopped application at every export (the library closes them when the application
 * stops, {@code RateLimiterMetrics.close}).
 */
@ExtendWith(ArquillianExtension.class)
class LibertyMp7RedeployIT {

    private static final String NAME = "redeploy";

    // Made by the deployment method, which Arquillian calls before anything of the class runs.
    private static RedeployCheck check;
    private static OtlpReceiver otlp;

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = NAME, managed = false, testable = false)
    static WebArchive deployment() {
        otlp = OtlpReceiver.start(Integer.parseInt(System.getProperty("otlp.port")));
        LibertyPostgresOverride.applyIfInContainer();
        check = new RedeployCheck();
        return check.deployment("redeploy.war");
    }

    @AfterAll
    static void stop() {
        if (check != null) {
            check.close();
        }
        if (otlp != null) {
            otlp.close();
        }
    }

    @Test
    @DisplayName("4 redeploys with the server's OpenTelemetry SDK on leave no class loader, thread or connection, "
            + "and no callback into an undeployed application")
    void redeploysLeaveNothing() throws SQLException {
        URI root = URI.create("http://127.0.0.1:" + System.getProperty("liberty.http.port") + "/");
        ServerLog log = ServerLog.mark();
        deployer.deploy(NAME);
        try {
            check.assertNothingLeftBehind(root, LibertyRedeployIT.REDEPLOYS, () -> {
                deployer.undeploy(NAME);
                deployer.deploy(NAME);
            });
            otlp.exportAfterNow(Duration.ofSeconds(20));
            otlp.exportAfterNow(Duration.ofSeconds(20));
            assertThat(log.text()).contains("Rate limiter metrics: OpenTelemetry")
                    .doesNotContain("An exception occurred invoking callback");
        } finally {
            deployer.undeploy(NAME);
        }
    }
}
