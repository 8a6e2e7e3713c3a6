package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.PostgresSchema;
import dev.ratelimiter.testing.TestServers;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two Payara Micro instances of the example (started by the test, not clustered) and requests alternating between
 * them on one account: with a shared backend (Valkey, or PostgreSQL through the server's own pool) they admit the
 * limit once in all; in memory each admits it (the documented cost of the embedded default).
 */
class PayaraTwoInstancesIT {

    private final List<MicroInstance> instances = new ArrayList<>();
    private PostgresSchema schema;

    @AfterEach
    void stop() throws InterruptedException {
        for (MicroInstance instance : instances) {
            instance.close();
        }
        if (schema != null) {
            schema.close();
        }
    }

    @Test
    @DisplayName("Valkey: alternating between two instances, one account gets 5 attempts in all")
    void valkeyShared() {
        String prefix = "rl-two-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        assertThat(attemptsAllowed("ratelimiter.backend=valkey\nratelimiter.valkey.url="
                + TestServers.valkeyUrl()
                + "\nratelimiter.valkey.key-prefix=" + prefix + "\n")).isEqualTo(5);
    }

    @Test
    @DisplayName("PostgreSQL through the server's own pool: alternating between two instances, one account gets 5 "
            + "attempts in all, and the refused ones count nothing in the store")
    void postgresShared() throws SQLException {
        schema = PostgresSchema.create("rl_two");
        // Refusals kept long enough to outlast the run on a loaded machine, so the count below is exact.
        assertThat(attemptsAllowed(PayaraPool.config() + "ratelimiter.deny-cache.max-age=PT30S\n",
                PayaraPool.glassfishResources(schema))).isEqualTo(5);
        long[] counters = schema.counters("login");
        assertThat(counters[0]).as("login counters in the run's table").isEqualTo(1);
        // 5 allowed; the refusals (one per instance from the store, the others from each one's memory) count
        // nothing (docs/guide.md#fixed-windows).
        assertThat(counters[1]).as("attempts counted in that counter").isEqualTo(5);
    }

    @Test
    @DisplayName("in memory: alternating between two instances, each admits the limit (10 in all)")
    void memoryPerInstance() {
        assertThat(attemptsAllowed("")).isEqualTo(10);
    }

    /** Starts two instances with the configuration and counts the wrong-password attempts answered 401. */
    private int attemptsAllowed(String config) {
        return attemptsAllowed(config, null);
    }

    /** The same, with {@code WEB-INF/glassfish-resources.xml} in the WAR when {@code resources} is not null. */
    private int attemptsAllowed(String config, String resources) {
        Path war = export(config, resources);
        List<URI> roots = List.of(start(war), start(war));
        for (URI root : roots) {
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> ExampleApi.newClient(root).get("health/ready").statusCode() == 200);
        }
        String account = "two-" + UUID.randomUUID();
        int allowed = 0;
        for (int i = 0; i < 12; i++) {
            int status = ExampleApi.newClient(roots.get(i % 2)).login(account, "wrong").statusCode();
            assertThat(status).as("attempt %d", i).isIn(401, 429);
            allowed += status == 401 ? 1 : 0;
        }
        return allowed;
    }

    private static Path export(String config, String resources) {
        try {
            Path directory = Files.createTempDirectory("ratelimiter-two-");
            Path war = directory.resolve("ROOT.war");
            WebArchive archive = ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n" + config);
            if (resources != null) {
                archive.addAsWebInfResource(new StringAsset(resources), "glassfish-resources.xml");
            }
            archive.as(ZipExporter.class).exportTo(war.toFile(), true);
            return war;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private URI start(Path war) {
        MicroInstance instance = MicroInstance.start(war);
        instances.add(instance);
        return instance.root();
    }
}
