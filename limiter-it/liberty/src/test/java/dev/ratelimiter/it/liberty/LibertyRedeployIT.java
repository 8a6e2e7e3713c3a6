package dev.ratelimiter.it.liberty;

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

/**
 * {@link RedeployCheck} on Open Liberty: the adapter deploys through the server's dropins directory, and each
 * redeploy is an undeploy (the WAR leaves dropins) and a deploy of the same archive.
 */
@ExtendWith(ArquillianExtension.class)
public class LibertyRedeployIT {

    private static final String NAME = "redeploy";
    /**
     * Two redeploys a half: one loader leaked a redeploy is then two over the half's count, against the tolerance of
     * one. Seen on this runtime: live web-module loaders at the first deployment, the half and the end 7, 5, 6 here
     * (earlier classes' modules still being collected) and 3, 3, 3 on the MicroProfile 7 server; with the probe
     * leaking its own loader on purpose, 2, 4, 6, which fails.
     */
    public static final int REDEPLOYS = 4;

    // Made by the deployment method, which Arquillian calls before anything of the class runs.
    private static RedeployCheck check;

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = NAME, managed = false, testable = false)
    static WebArchive deployment() {
        LibertyPostgresOverride.applyIfInContainer();
        check = new RedeployCheck();
        return check.deployment("redeploy.war");
    }

    @AfterAll
    static void dropSchema() {
        if (check != null) {
            check.close();
        }
    }

    @Test
    @DisplayName("4 redeploys with the library's own PostgreSQL pool leave no class loader, thread or connection")
    void redeploysLeaveNothing() throws SQLException {
        URI root = URI.create("http://127.0.0.1:" + System.getProperty("liberty.http.port") + "/");
        deployer.deploy(NAME);
        try {
            check.assertNothingLeftBehind(root, REDEPLOYS, () -> {
                deployer.undeploy(NAME);
                deployer.deploy(NAME);
            });
        } finally {
            deployer.undeploy(NAME);
        }
    }
}
