package dev.ratelimiter.it;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Limits changed while the server runs (docs/live-limits.md), over real HTTP, written once for every server: the
 * deployment reads {@link #LIMITS_FILE} as {@code ratelimiter.reload.file} every second ({@link #CONFIG}), and the
 * scenarios rewrite it. Only bucket {@code live} ({@code GET /api/live}, 5 a minute in the scenarios'
 * configuration) is changed, and each scenario starts from an empty file and the bucket's own limit, so no other
 * scenario sees a change. A server module extends this class, deploys the example with {@link #CONFIG} and
 * {@code ratelimiter.trusted-proxies} including 127.0.0.1, and returns the deployment's root from {@link #baseUri()}.
 */
public abstract class LiveLimitsScenarios {

    /**
     * The reload file of the deployments under test: a file of this test JVM's own, created empty, which the server
     * (on the same machine) reads.
     */
    public static final Path LIMITS_FILE = emptyFile();

    /** The properties that make a deployment read {@link #LIMITS_FILE} every second. */
    public static final String CONFIG = "ratelimiter.reload.file=" + LIMITS_FILE + "\n"
            + "ratelimiter.reload.interval=PT1S\n";

    private static final Duration RELOADED = Duration.ofSeconds(30);

    /** The deployment's root, such as {@code http://localhost:8080/}. */
    protected abstract URI baseUri();

    /** The readiness path of the server, relative to the root: {@code health/ready} on Payara and Open Liberty. */
    protected String readinessPath() {
        return "health/ready";
    }

    private ExampleApi client() {
        return ExampleApi.newClient(baseUri());
    }

    @BeforeEach
    void bucketsOwnSettings() {
        write("");
        awaitPolicy(5);
        await().atMost(RELOADED).until(() -> rejectedSettings().isEmpty());
    }

    @Test
    @DisplayName("a limit lowered in the reload file applies without a restart, to the count already made: 1 call under 5, then 2 more under 3, then 429")
    void limitLoweredLive() {
        ExampleApi client = client();
        HttpResponse<String> first = client.get("api/live");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit"))
                .hasValueSatisfying(v -> assertThat(v).contains("\"live\";r=4;"));

        write("ratelimiter.buckets.live.limit=3\n");
        awaitPolicy(3);

        for (int left = 1; left >= 0; left--) {
            String remaining = "\"live\";r=" + left + ";";
            HttpResponse<String> allowed = client.get("api/live");
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit-Policy"))
                    .hasValueSatisfying(v -> assertThat(v).contains("\"live\";q=3;w=60"));
            assertThat(allowed.headers().firstValue("RateLimit"))
                    .hasValueSatisfying(v -> assertThat(v).contains(remaining));
        }
        HttpResponse<String> refused = client.get("api/live");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("live");
    }

    @Test
    @DisplayName("a bad value in the reload file is kept out: the old limit applies and readiness data rejectedSettings names the property until it is fixed")
    void badValueKeptOut() {
        write("ratelimiter.buckets.live.limit=4\n");
        awaitPolicy(4);

        write("ratelimiter.buckets.live.limit=four\n");
        await().atMost(RELOADED).until(() -> rejectedSettings().isPresent());
        assertThat(rejectedSettings()).hasValueSatisfying(problems -> assertThat(problems)
                .startsWith("ratelimiter.buckets.live.limit: 'four' is not a whole number"));

        ExampleApi client = client();
        for (int i = 1; i <= 4; i++) {
            HttpResponse<String> allowed = client.get("api/live");
            assertThat(allowed.statusCode()).as("call %d under the old limit", i).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit-Policy"))
                    .hasValueSatisfying(v -> assertThat(v).contains("\"live\";q=4;w=60"));
        }
        assertThat(client.get("api/live").statusCode()).as("the fifth call").isEqualTo(429);

        write("ratelimiter.buckets.live.limit=6\n");
        await().atMost(RELOADED).until(() -> rejectedSettings().isEmpty());
        awaitPolicy(6);
        assertThat(client.get("api/live").statusCode()).as("the fifth call under 6").isEqualTo(200);
    }

    /** Waits until a new client's call of {@code api/live} shows the limit {@code q} in its RateLimit-Policy. */
    private void awaitPolicy(long q) {
        await().atMost(RELOADED).until(() -> client().get("api/live").headers().firstValue("RateLimit-Policy")
                .orElse("").contains("\"live\";q=" + q + ";w=60"));
    }

    /** The readiness check's {@code rejectedSettings}, if it has any; the check itself stays UP. */
    private Optional<String> rejectedSettings() {
        HttpResponse<String> response = client().get(readinessPath());
        assertThat(response.statusCode()).isEqualTo(200);
        JsonObject health = ExampleApi.json(response);
        assertThat(health.getString("status")).isEqualTo("UP");
        JsonObject check = health.getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(c -> c.getString("name").equals("rate-limiter")).findFirst().orElseThrow();
        assertThat(check.getString("status")).isEqualTo("UP");
        JsonObject data = check.getJsonObject("data");
        return data.containsKey("rejectedSettings") ? Optional.of(data.getString("rejectedSettings"))
                : Optional.empty();
    }

    /** Replaces the reload file's text at once (a new file moved over it), as docs/live-limits.md advises. */
    private static void write(String text) {
        try {
            Path next = Files.createTempFile(LIMITS_FILE.getParent(), "live-limits", ".tmp");
            Files.writeString(next, text);
            Files.move(next, LIMITS_FILE, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A file named after this JVM, created empty if absent: the same path for every class loader of the JVM (Quarkus
     * loads the test class, and reads its profile, in a class loader of its own).
     */
    private static Path emptyFile() {
        Path file = Path.of(System.getProperty("java.io.tmpdir"), "live-limits-" + ProcessHandle.current().pid()
                + ".properties");
        try {
            Files.createFile(file);
            file.toFile().deleteOnExit();
        } catch (java.nio.file.FileAlreadyExistsException e) {
            // made by another class loader's copy of this class
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }
}
