package dev.ratelimiter.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limits in the OpenAPI document a server serves (docs/openapi.md), fetched over HTTP as a client generator or
 * an API portal fetches it. Any server's test calls {@link #assertExampleDocumented(URI, URI)} with the document's
 * address ({@code /openapi} on Payara Micro and Open Liberty, {@code /q/openapi} on Quarkus) and the example's root,
 * deployed with its own limits (a global key resolver, as {@link GlobalKeyResolverScenarios#CONFIG} names, may be
 * set).
 */
public final class OpenApiScenarios {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private OpenApiScenarios() {
    }

    /**
     * The served document shows the example's limits: {@code POST /api/login} the global filter's buckets and
     * {@code LoginService}'s two ({@code @RateLimitedBy}), {@code GET /api/reports} its token bucket with its plans
     * and the 400 of a missing {@code X-Tenant}, each with the 429 whose headers and problem schema are those of a
     * refusal the example really sends.
     *
     * @param document the document's address
     * @param example  the example's root, ending with {@code /}
     */
    public static void assertExampleDocumented(URI document, URI example) throws Exception {
        HttpResponse<String> served = HTTP.send(HttpRequest.newBuilder(document).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(served.statusCode()).as(document + " answers").isEqualTo(200);
        JsonObject openApi = Json.createReader(new StringReader(served.body())).readObject();
        JsonObject paths = openApi.getJsonObject("paths");

        JsonObject login = paths.getJsonObject("/api/login").getJsonObject("post");
        assertThat(ref(login, "429")).isEqualTo("#/components/responses/RateLimitExceeded");
        assertThat(buckets(login)).containsExactly("api-authenticated", "api-anonymous", "login-address", "login");
        JsonObject loginLimit = limit(login, "login");
        assertThat(loginLimit.getString("source")).isEqualTo("RateLimitedBy");
        assertThat(loginLimit.getJsonArray("limits")).containsExactly(Json.createObjectBuilder().add("limit", 5)
                .add("window", "PT15M").build());
        assertThat(limit(login, "api-anonymous").getString("key")).as("the client address, after a resolver if set")
                .isIn("client-address", "resolver, client-address");

        JsonObject reports = paths.getJsonObject("/api/reports").getJsonObject("get");
        assertThat(ref(reports, "429")).isEqualTo("#/components/responses/RateLimitExceeded");
        assertThat(ref(reports, "400")).as("TenantKeyResolver gives no key without X-Tenant")
                .isEqualTo("#/components/responses/RateLimitKeyMissing");
        JsonObject reportsLimit = limit(reports, "reports");
        assertThat(reportsLimit.getString("algorithm")).isEqualTo("token-bucket");
        assertThat(reportsLimit.getInt("burst")).isEqualTo(3);
        assertThat(reportsLimit.getString("plan-resolver")).isEqualTo("dev.ratelimiter.example.TenantPlanResolver");
        assertThat(reportsLimit.getJsonObject("plans").getJsonObject("pro").getJsonArray("limits"))
                .containsExactly(Json.createObjectBuilder().add("limit", 50).add("window", "PT1M").build());
        assertThat(limit(reports, "reports-monthly").getJsonArray("limits")).as("a calendar month, in UTC")
                .containsExactly(Json.createObjectBuilder().add("limit", 1000).add("window", "month")
                        .add("zone", "UTC").build());
        assertThat(buckets(paths.getJsonObject("/api/projects/{id}").getJsonObject("get")))
                .as("GET /api/projects/{id}").containsExactly("api-authenticated", "api-anonymous", "projects");

        JsonObject components = openApi.getJsonObject("components");
        JsonObject exceeded = components.getJsonObject("responses").getJsonObject("RateLimitExceeded");
        assertThat(exceeded.getJsonObject("headers").keySet())
                .containsExactlyInAnyOrder("RateLimit", "RateLimit-Policy", "Retry-After");
        assertThat(exceeded.getJsonObject("content").getJsonObject("application/problem+json")
                .getJsonObject("schema").getString("$ref")).isEqualTo("#/components/schemas/RateLimitProblem");
        assertThat(components.getJsonObject("headers").getJsonObject("Retry-After").getJsonObject("schema")
                .toString()).contains("integer");

        // The schema is what a refusal carries: the example's own 429 for one tenant (a burst of 3).
        JsonObject problem = components.getJsonObject("schemas").getJsonObject("RateLimitProblem");
        ExampleApi client = ExampleApi.newClient(example);
        String tenant = "openapi-" + UUID.randomUUID();
        HttpResponse<String> refused = null;
        for (int i = 0; i < 4; i++) {
            refused = client.getWith("api/reports", "X-Tenant", tenant);
        }
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/problem+json");
        for (String header : exceeded.getJsonObject("headers").keySet()) {
            assertThat(refused.headers().firstValue(header)).as(header).isPresent();
        }
        JsonObject body = Json.createReader(new StringReader(refused.body())).readObject();
        assertThat(body.keySet()).containsExactlyInAnyOrderElementsOf(problem.getJsonObject("properties").keySet());
        assertThat(problem.getJsonArray("required").getValuesAs(JsonValue::toString).stream()
                .map(name -> name.replace("\"", "")).toList()).allMatch(body::containsKey);
    }

    private static String ref(JsonObject operation, String status) {
        JsonObject response = operation.getJsonObject("responses").getJsonObject(status);
        return response == null ? null : response.getString("$ref");
    }

    private static List<String> buckets(JsonObject operation) {
        return operation.getJsonArray("x-ratelimit").getValuesAs(JsonObject.class).stream()
                .map(limit -> limit.getString("bucket")).toList();
    }

    private static JsonObject limit(JsonObject operation, String bucket) {
        return operation.getJsonArray("x-ratelimit").getValuesAs(JsonObject.class).stream()
                .filter(limit -> limit.getString("bucket").equals(bucket)).findFirst().orElseThrow(
                        () -> new AssertionError("no bucket " + bucket + " in " + operation));
    }
}
