package dev.ratelimiter.it;

import jakarta.json.JsonObject;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The shared store killed while requests flow, then restarted, seen over HTTP on a real server
 * (docs/operations.md#when-a-shared-store-fails): the global buckets fall back and keep answering, {@code login}, made
 * fail-closed by {@link #CONFIG}, answers its documented 503, readiness says {@code degraded} and the metrics count the
 * fallbacks and show the degraded flag; once the store is back, readiness is {@code ok} and counting resumes in the store. Each server's test
 * owns the store process and says how to kill and restart it.
 */
public final class StoreOutageScenario {

    /** What the deployment adds to its store's properties: {@code login} fails closed, the rest fall back. */
    public static final String CONFIG = "ratelimiter.buckets.login.on-outage=fail-closed\n";

    /**
     * The properties of a deployment counting in the Valkey at {@code url} (such as {@code redis://127.0.0.1:6380}),
     * with {@link #CONFIG}.
     */
    public static String onValkey(String url) {
        return "ratelimiter.backend=valkey\n" + "ratelimiter.valkey.url=" + url + "\n" + CONFIG;
    }

    private final ExampleApi client;
    private final String readinessPath;
    private final String metricsPath;

    /**
     * @param root          the example's root
     * @param readinessPath where the server serves readiness, relative to {@code root} (or absolute)
     * @param metricsPath   where it serves the metrics in the Prometheus text format, likewise
     */
    public StoreOutageScenario(URI root, String readinessPath, String metricsPath) {
        this.client = ExampleApi.newClient(root);
        this.readinessPath = readinessPath;
        this.metricsPath = metricsPath;
    }

    /**
     * Runs the outage: requests before it, {@code kill}, requests and checks during it, {@code restart}, and the
     * recovery (up to 30 s for the outage to show, 60 s for the recovery).
     */
    public void killedAndRestarted(Runnable kill, Runnable restart) {
        String account = "outage-" + UUID.randomUUID();
        assertThat(client.get("api/projects").statusCode()).isEqualTo(200);
        assertThat(client.login(account, "wrong").statusCode()).isEqualTo(401);
        assertThat(state()).isEqualTo("ok");

        kill.run();

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            assertThat(client.get("api/projects").statusCode()).as("fallback bucket").isEqualTo(200);
            assertThat(state()).isEqualTo("degraded");
        });
        for (int i = 0; i < 20; i++) {
            assertThat(client.get("api/projects").statusCode()).as("fallback bucket, request %d", i).isEqualTo(200);
        }
        assertFailedClosed(client.login(account, "wrong"));
        assertThat(client.get(metricsPath).body()).containsPattern(
                "rate_limiter_fallbacks_total\\{[^}]*bucket=\"api-anonymous\"[^}]*} [1-9]")
                .containsPattern("rate_limiter_degraded\\{[^}]*backend=\"[a-z]+\"[^}]*} 1");

        restart.run();

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> state().equals("ok"));
        assertThat(client.login(account, "wrong").statusCode()).as("counting in the store again").isEqualTo(401);
    }

    /** The fail-closed bucket's answer: 503 with {@code Retry-After} and the temporary-reduced-capacity problem. */
    private static void assertFailedClosed(HttpResponse<String> closed) {
        assertThat(closed.statusCode()).as("fail-closed bucket").isEqualTo(503);
        long retryAfter = Long.parseLong(closed.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).isBetween(1L, 30L);
        JsonObject problem = ExampleApi.json(closed);
        assertThat(problem.getString("type"))
                .isEqualTo("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");
        assertThat(problem.getString("title")).isEqualTo("Temporary Reduced Capacity");
        assertThat(problem.getInt("status")).isEqualTo(503);
        assertThat(problem.getJsonArray("violated-policies").getString(0)).isEqualTo("login");
        assertThat(problem.getString("bucket")).isEqualTo("login");
        assertThat(problem.getJsonNumber("retryAfter").longValueExact()).isEqualTo(retryAfter);
    }

    /** The rate-limiter readiness check's {@code state}. */
    private String state() {
        JsonObject health = ExampleApi.json(client.get(readinessPath));
        return health.getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(check -> check.getString("name").equals("rate-limiter")).findFirst().orElseThrow()
                .getJsonObject("data").getString("state");
    }
}
