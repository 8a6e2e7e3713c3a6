package dev.ratelimiter.it.redeploy;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.PostgresSchema;
import dev.ratelimiter.testing.TestServers;
import jakarta.json.JsonObject;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.net.URI;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redeploys the example with the PostgreSQL backend and the library's own pool ({@code ratelimiter.postgres.url},
 * pgjdbc and HikariCP in {@code WEB-INF/lib}) again and again, and checks that nothing of the earlier deployments
 * stays behind: after the last one, the server's JVM holds no more web-module class loaders and threads than after
 * the first, and PostgreSQL sees no more connections of the application than one pool's (docs/stores.md#redeploys).
 * Each deployment counts a login in the store, so each has opened its pool. The servers' tests say how they
 * redeploy.
 */
public final class RedeployCheck implements AutoCloseable {

    /**
     * How many times a test redeploys: enough for one leaked loader a redeploy to stand out from the noise (the
     * second half's five against the one loader a server may keep), few enough for the four servers' CI budget.
     */
    public static final int REDEPLOYS = 10;

    private static final int POOL_SIZE = 2;
    private static final Duration ASK_AGAIN = Duration.ofSeconds(30);

    private final PostgresSchema schema = PostgresSchema.create("rl_redeploy");
    private final String applicationName = "rl-redeploy-" + UUID.randomUUID().toString().substring(0, 8);

    /**
     * The example at the root context with this check's probe and configuration: PostgreSQL in a schema of its
     * own, through the library's pool of {@value #POOL_SIZE} connections, which carry this check's
     * {@code ApplicationName}.
     */
    public WebArchive deployment(String archiveName) {
        String url = TestServers.postgres().url();
        return ExampleDeployments.example(archiveName, "ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                        + schema.ownPool(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName)
                        + "ratelimiter.postgres.pool-size=" + POOL_SIZE + "\n")
                .addClass(JvmProbeServlet.class);
    }

    /**
     * With the deployment of {@link #deployment} running at {@code root}: {@value #REDEPLOYS} times
     * {@code redeploy}, then checks that the second half of them added nothing. A server may keep a few undeployed
     * applications for a while (Open Liberty keeps some), but what a redeploy leaks grows with every one: the
     * class loaders after the last redeploy are at most one more than those after the half, and the threads and
     * connections at most those of the first deployment. Each count is awaited (a collection may lag, and pgjdbc's cleaner thread
     * ends only after a while idle).
     *
     * @param redeploy replaces the running deployment with a new one of the same archive, and returns once asked
     */
    public void assertNothingLeftBehind(URI root, Runnable redeploy) throws SQLException {
        assertNothingLeftBehind(root, redeploy, REDEPLOYS);
    }

    /**
     * {@link #assertNothingLeftBehind(URI, Runnable)} with {@code redeploys} redeploys, for a server whose redeploy
     * is slow: a leak of one class loader a redeploy shows as {@code redeploys / 2} against the tolerance of one, so
     * 4 is the fewest that still fails on it.
     *
     * @param redeploys an even number, at least 4
     * @throws IllegalArgumentException if {@code redeploys} is odd or under 4
     */
    public void assertNothingLeftBehind(URI root, Runnable redeploy, int redeploys) throws SQLException {
        if (redeploys < 4 || redeploys % 2 != 0) {
            throw new IllegalArgumentException("redeploys must be even and at least 4, so that a leak of one loader "
                    + "a redeploy exceeds the tolerance of one: " + redeploys);
        }
        JsonObject first = await("the first deployment").atMost(Duration.ofMinutes(2)).ignoreExceptions()
                .until(() -> countedLogin(root), probe -> probe != null);
        redeploy(root, redeploy, 1, redeploys / 2);
        JsonObject half = settled(root, first, Integer.MAX_VALUE);
        redeploy(root, redeploy, redeploys / 2 + 1, redeploys);
        settled(root, first, half.getInt("loaders") + 1);
        assertThat(schema.counters("login")[0]).as("login counters in the store, one a deployment at least")
                .isGreaterThanOrEqualTo(redeploys + 1L);
    }

    /**
     * Redeploys, and asks again when no new deployment answers within {@link #ASK_AGAIN}: Payara's reloader reads
     * the {@code .reload} file's time first when it first scans the application, so a change made before that scan
     * is taken as the starting point, not as a change. A request repeated while a redeploy runs only adds one.
     */
    private static void redeploy(URI root, Runnable redeploy, int from, int to) {
        for (int i = from; i <= to; i++) {
            String before = probe(root).getString("deployment");
            redeploy.run();
            long[] asked = {System.nanoTime()};
            await("redeploy " + i).atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions().until(() -> {
                        if (System.nanoTime() - asked[0] > ASK_AGAIN.toNanos()) {
                            redeploy.run();
                            asked[0] = System.nanoTime();
                        }
                        return !probe(root).getString("deployment").equals(before);
                    });
            await("redeploy " + i + " counts a login").atMost(Duration.ofMinutes(1)).ignoreExceptions()
                    .until(() -> countedLogin(root), probe -> probe != null);
        }
    }

    /**
     * The probe once no more threads run with another deployment's loader than with the first, the threads are at most the first deployment's (and
     * a few the server may start meanwhile), the application has at most one pool's connections, and at most
     * {@code loaders} web-module class loaders live.
     */
    private JsonObject settled(URI root, JsonObject first, int loaders) {
        int threads = first.getInt("threads");
        String type = first.getString("loaderType");
        AtomicReference<JsonObject> settled = new AtomicReference<>();
        await("what the earlier deployments leave").atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
                    JsonObject last = probe(root);
                    long connections = connections();
                    String seen = "first deployment " + first + ", now " + last + ", connections named "
                            + applicationName + ": " + connections;
                    // The server's own may run with a loader of that kind (Payara's log pump does).
                    assertThat(last.getJsonArray("threadsOfOtherDeployments")).as("threads of other deployments; %s",
                            seen).hasSizeLessThanOrEqualTo(first.getJsonArray("threadsOfOtherDeployments").size());
                    assertThat(last.getInt("threads")).as("threads; %s", seen).isLessThanOrEqualTo(threads + 4);
                    assertThat(connections).as("connections; %s", seen).isLessThanOrEqualTo(POOL_SIZE);
                    assertThat(last.getInt("loaders")).as("live %s loaders; %s", type, seen)
                            .isLessThanOrEqualTo(loaders);
                    settled.set(last);
                });
        return settled.get();
    }

    /** The probe after one wrong-password login counted in the store (401), or null while the login is refused. */
    private static JsonObject countedLogin(URI root) {
        HttpResponse<String> login = ExampleApi.newClient(root).login("redeploy-" + UUID.randomUUID(), "wrong");
        return login.statusCode() == 401 ? probe(root) : null;
    }

    private static JsonObject probe(URI root) {
        HttpResponse<String> response = ExampleApi.newClient(root).get("probe/jvm");
        assertThat(response.statusCode()).as("probe: %s", response.body()).isEqualTo(200);
        return ExampleApi.json(response);
    }

    private long connections() throws SQLException {
        TestServers.Postgres postgres = TestServers.postgres();
        try (Connection connection = DriverManager.getConnection(postgres.url(), postgres.user(), postgres.password());
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?")) {
            statement.setString(1, applicationName);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /** Drops the schema. */
    @Override
    public void close() {
        schema.close();
    }
}
