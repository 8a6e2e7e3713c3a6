package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.PostgresSchema;
import dev.ratelimiter.testing.TestServers;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two Payara Micro instances of the example (started by the test, not clustered) and requests alternating between
 * them on one account: with a shared backend (Valkey, or PostgreSQL through the server's own pool) they admit the
 * limit once in all; in memory each admits it (the documented cost of the embedded default). Each instance runs the
 * example three times, once per backend, at {@code /valkey}, {@code /postgres} and {@code /memory}: the applications
 * share no counter, so one pair of starts serves the three tests.
 */
class PayaraTwoInstancesIT {

    private static PostgresSchema schema;
    private static List<MicroInstance> instances = List.of();

    @BeforeAll
    static void start() {
        schema = PostgresSchema.create("rl_two");
        String prefix = "rl-two-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        List<Path> applications = MicroInstance.export(Map.of(
                "valkey.war", example("valkey.war", "ratelimiter.backend=valkey\nratelimiter.valkey.url="
                        + TestServers.valkeyUrl() + "\nratelimiter.valkey.key-prefix=" + prefix + "\n"),
                // Refusals kept long enough to outlast the run on a loaded machine, so the count below is exact.
                "postgres.war", example("postgres.war", PayaraPool.config()
                        + "ratelimiter.deny-cache.max-age=PT30S\n")
                        .addAsWebInfResource(new StringAsset(PayaraPool.glassfishResources(schema)),
                                "glassfish-resources.xml"),
                "memory.war", example("memory.war", "")));
        // Both started before either is awaited, so their starts overlap.
        instances = List.of(MicroInstance.startAll(applications), MicroInstance.startAll(applications));
        instances.forEach(MicroInstance::awaitReady);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        for (MicroInstance instance : instances) {
            instance.close();
        }
        if (schema != null) {
            schema.close();
        }
    }

    @Test
    @DisplayName("Valkey: alternating between two instances, one account gets 5 attempts in all, and the lock one "
            + "instance set refuses it on both (docs/guide.md#blocks-after-a-refusal)")
    void valkeyShared() {
        String account = "two-" + UUID.randomUUID();
        assertThat(attemptsAllowed("valkey", account)).isEqualTo(5);
        assertLockedOnBoth("valkey", account);
    }

    @Test
    @DisplayName("PostgreSQL through the server's own pool: alternating between two instances, one account gets 5 "
            + "attempts in all, the refused ones count nothing in the store, and the lock one instance set refuses it "
            + "on both")
    void postgresShared() throws SQLException {
        String account = "two-" + UUID.randomUUID();
        assertThat(attemptsAllowed("postgres", account)).isEqualTo(5);
        assertLockedOnBoth("postgres", account);
        long[] counters = schema.counters("login");
        assertThat(counters[0]).as("login rows in the run's table: the account's counter, its lock and the count of "
                + "its locks (the example's locks grow: block-max)").isEqualTo(3);
        // 5 allowed; the refusals (one per instance from the store, the others from each one's memory) count
        // nothing (docs/guide.md#fixed-windows).
        assertThat(counters[1]).as("attempts counted in that counter").isEqualTo(5);
    }

    @Test
    @DisplayName("in memory: alternating between two instances, each admits the limit (10 in all)")
    void memoryPerInstance() {
        assertThat(attemptsAllowed("memory", "two-" + UUID.randomUUID())).isEqualTo(10);
    }

    /** Counts the wrong-password attempts answered 401 of 12 alternating between the instances' {@code application}. */
    private static int attemptsAllowed(String application, String account) {
        int allowed = 0;
        for (int i = 0; i < 12; i++) {
            URI root = instances.get(i % 2).root().resolve(application + "/");
            int status = ExampleApi.newClient(root).login(account, "wrong").statusCode();
            assertThat(status).as("attempt %d", i).isIn(401, 429);
            allowed += status == 401 ? 1 : 0;
        }
        return allowed;
    }

    /** The account's next attempt on each instance: refused by the lock, to its end an hour after it was set. */
    private static void assertLockedOnBoth(String application, String account) {
        for (MicroInstance instance : instances) {
            HttpResponse<String> refused = ExampleApi.newClient(instance.root().resolve(application + "/"))
                    .login(account, "wrong");
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()))
                    .as("the lock's end, past the window's 15 minutes").isBetween(901L, 3_600L);
        }
    }

    private static WebArchive example(String name, String config) {
        return ExampleDeployments.example(name, PayaraServers.TRUSTED + config);
    }
}
