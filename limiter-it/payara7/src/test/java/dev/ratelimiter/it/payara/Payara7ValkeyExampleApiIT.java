package dev.ratelimiter.it.payara;

import dev.ratelimiter.internal.valkey.RedisServer;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.StoreOutageScenario;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import java.util.Map;


/**
 * The example API's scenarios on Payara Micro 7 with the Valkey backend, then an outage on that real server: the
 * example counts in a {@code redis-server} of this test's own, which the last test kills while requests flow and
 * then restarts. The global buckets fall back; {@code login} is made fail-closed for this deployment, so it answers
 * its documented 503 (no scenario before the outage sees the difference: the policy applies to outages only).
 *
 * <p>The outage runs last ({@link Order}), since the scenarios before it check that nothing has fallen back yet
 * (metrics and readiness at zero fallbacks); it ends with the store back and readiness {@code ok}.
 *
 * <p>Payara Micro 6 (limiter-it/payara) runs the example API in memory and on PostgreSQL; this module runs it in
 * memory and on Valkey, so each store meets each Payara once (CONTRIBUTING.md#the-coverage-matrix).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class Payara7ValkeyExampleApiIT extends PayaraExampleScenarios {

    // Started by the deployment method, which Arquillian calls before anything of the class runs.
    private static RedisServer valkey;

    @Deployment(testable = false)
    static WebArchive deployment() {
        valkey = RedisServer.start();
        return ExampleDeployments.example(PayaraServers.TRUSTED + StoreOutageScenario.onValkey(valkey.url()));
    }

    @AfterAll
    static void stopValkey() {
        if (valkey != null) {
            valkey.close();
        }
    }

    @Override
    protected Map<String, String> scenariosNotRun() {
        return runOnly(ON_A_SHARED_STORE, Map.of());
    }

    @Override
    protected String backend() {
        return "valkey";
    }

    @Test
    @Order(Integer.MAX_VALUE)
    @DisplayName("killed while requests flow: no 5xx on fallback buckets, 503 temporary-reduced-capacity on the fail-closed one, readiness degraded, fallbacks on /metrics; restarted: ok again")
    void killedAndRestarted() {
        new StoreOutageScenario(baseUri(), "health/ready", "metrics").killedAndRestarted(valkey::kill, valkey::restart);
    }
}
