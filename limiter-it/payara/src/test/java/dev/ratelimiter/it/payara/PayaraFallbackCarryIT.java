package dev.ratelimiter.it.payara;

import dev.ratelimiter.internal.valkey.RedisServer;
import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.FallbackCarryScenario;
import dev.ratelimiter.it.ProxiedPostgres;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * {@link FallbackCarryScenario} on Payara Micro, on each shared store: the instance (started by the test, as the
 * store is) counts logins in Valkey or PostgreSQL, the store is taken down, and the fallback goes on from the
 * store's counts.
 */
class PayaraFallbackCarryIT {

    private MicroInstance instance;
    private AutoCloseable store;

    @AfterEach
    void stop() throws Exception {
        if (instance != null) {
            instance.close();
        }
        if (store != null) {
            store.close();
        }
    }

    @Test
    @DisplayName("Valkey killed: a locked account stays locked, one with 2 of 5 attempts left gets at most 2")
    void valkey() throws IOException {
        RedisServer valkey = RedisServer.start();
        store = valkey;
        FallbackCarryScenario scenario = FallbackCarryScenario.before(start(
                "ratelimiter.backend=valkey\nratelimiter.valkey.url=" + valkey.url() + "\n"));
        valkey.kill();
        scenario.assertCarried();
    }

    @Test
    @DisplayName("PostgreSQL cut off: a locked account stays locked, one with 2 of 5 attempts left gets at most 2")
    void postgres() throws IOException {
        ProxiedPostgres postgres = new ProxiedPostgres("rl_carry");
        store = postgres;
        FallbackCarryScenario scenario = FallbackCarryScenario.before(start(postgres.config()));
        postgres.cut();
        scenario.assertCarried();
    }

    /** Starts the example with the store's properties and waits until it is ready; returns its root. */
    private URI start(String config) throws IOException {
        Path war = Files.createTempDirectory("ratelimiter-carry-").resolve("ROOT.war");
        ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                        + FallbackCarryScenario.CONFIG + config)
                .as(ZipExporter.class).exportTo(war.toFile(), true);
        instance = MicroInstance.start(war);
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> ExampleApi.newClient(instance.root()).get("health/ready").statusCode() == 200);
        return instance.root();
    }
}
