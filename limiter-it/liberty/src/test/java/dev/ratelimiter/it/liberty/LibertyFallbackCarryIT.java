package dev.ratelimiter.it.liberty;

import dev.ratelimiter.internal.valkey.RedisServer;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.FallbackCarryScenario;
import dev.ratelimiter.it.ProxiedPostgres;
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

/**
 * {@link FallbackCarryScenario} on Open Liberty, on each shared store: the example counts logins in a
 * {@code redis-server}, or in PostgreSQL through a proxy, of this test's own; the store is taken down, and the
 * fallback goes on from the store's counts. Each store's deployment is deployed by its test.
 */
@ExtendWith(ArquillianExtension.class)
class LibertyFallbackCarryIT {

    // Made by the deployment methods, which Arquillian calls before anything of the class runs.
    private static RedisServer valkey;
    private static ProxiedPostgres postgres;

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "valkey", managed = false, testable = false)
    static WebArchive valkeyDeployment() {
        valkey = RedisServer.start();
        return ExampleDeployments.example("carry-valkey.war", "ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + FallbackCarryScenario.CONFIG + "ratelimiter.backend=valkey\n"
                + "ratelimiter.valkey.url=" + valkey.url() + "\n");
    }

    @Deployment(name = "postgres", managed = false, testable = false)
    static WebArchive postgresDeployment() {
        LibertyPostgresOverride.applyIfInContainer();
        postgres = new ProxiedPostgres("rl_carry");
        return ExampleDeployments.example("carry-postgres.war", "ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + FallbackCarryScenario.CONFIG + postgres.config());
    }

    @AfterAll
    static void stopStores() {
        if (valkey != null) {
            valkey.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    private static URI root() {
        return URI.create("http://127.0.0.1:" + System.getProperty("liberty.http.port") + "/");
    }

    @Test
    @DisplayName("Valkey killed: a locked account stays locked, one with 2 of 5 attempts left gets at most 2")
    void valkey() {
        carried("valkey", valkey::kill);
    }

    @Test
    @DisplayName("PostgreSQL cut off: a locked account stays locked, one with 2 of 5 attempts left gets at most 2")
    void postgres() {
        carried("postgres", postgres::cut);
    }

    /** Deploys the store's deployment, runs the scenario with the store taken down in between, undeploys. */
    private void carried(String deployment, Runnable takeStoreDown) {
        deployer.deploy(deployment);
        try {
            FallbackCarryScenario scenario = FallbackCarryScenario.before(root());
            takeStoreDown.run();
            scenario.assertCarried();
        } finally {
            deployer.undeploy(deployment);
        }
    }
}
