package dev.ratelimiter.it.payara;

import dev.ratelimiter.internal.valkey.RedisServer;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.FallbackCarryScenario;
import dev.ratelimiter.it.ProxiedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Map;

/**
 * {@link FallbackCarryScenario} on Payara Micro 7, on each shared store: one instance (started by the test, as the
 * stores are) runs the example twice, counting logins in Valkey at {@code /valkey} and in PostgreSQL at
 * {@code /postgres}; each test takes its application's store down, and the fallback goes on from that store's counts.
 * The applications share nothing but the server, so either test may run first.
 */
class Payara7FallbackCarryIT {

    private static RedisServer valkey;
    private static ProxiedPostgres postgres;
    private static MicroInstance instance;

    @BeforeAll
    static void start() {
        valkey = RedisServer.start();
        postgres = new ProxiedPostgres("rl_carry");
        String config = PayaraServers.TRUSTED + FallbackCarryScenario.CONFIG;
        instance = MicroInstance.deployAll(Map.of(
                "valkey.war", ExampleDeployments.example("valkey.war",
                        config + "ratelimiter.backend=valkey\nratelimiter.valkey.url=" + valkey.url() + "\n"),
                "postgres.war", ExampleDeployments.example("postgres.war", config + postgres.config())));
    }

    @AfterAll
    static void stop() throws Exception {
        if (instance != null) {
            instance.close();
        }
        if (valkey != null) {
            valkey.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    @DisplayName("Valkey killed: a locked account stays locked, one with 2 of 5 attempts left gets at most 2")
    void valkey() {
        FallbackCarryScenario scenario = FallbackCarryScenario.before(root("valkey"));
        valkey.kill();
        scenario.assertCarried();
    }

    @Test
    @DisplayName("PostgreSQL cut off: a locked account stays locked, one with 2 of 5 attempts left gets at most 2")
    void postgres() {
        FallbackCarryScenario scenario = FallbackCarryScenario.before(root("postgres"));
        postgres.cut();
        scenario.assertCarried();
    }

    private static URI root(String application) {
        return instance.root().resolve(application + "/");
    }
}
