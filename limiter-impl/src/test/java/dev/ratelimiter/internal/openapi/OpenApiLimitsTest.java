package dev.ratelimiter.internal.openapi;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.cdi.openapi.DocumentedLimits;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.Paths;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limits added to an OpenAPI model built with MicroProfile OpenAPI's factory. Run twice by the build: against
 * MicroProfile OpenAPI 3.1 with SmallRye OpenAPI 3.x (the default test run), and against 4.x with SmallRye OpenAPI
 * 4.x (limiter-impl's openapi-4 execution), where {@code Schema.getType()} returns a list.
 */
class OpenApiLimitsTest {

    private static final Bucket GLOBAL_ANONYMOUS = Bucket.of("api-anonymous", 120, Duration.ofMinutes(1));
    private static final Bucket REPORTS = Bucket.of("reports", List.of(new Limit(5, Duration.ofMinutes(1))),
            OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 3);
    private static final Bucket LOGIN = Bucket.of("login", 5, Duration.ofMinutes(15), OutagePolicy.FAIL_CLOSED);
    private static final Bucket PROJECTS = Bucket.of("projects", List.of(new Limit(3, Duration.ofSeconds(10)),
            new Limit(10, Duration.ofHours(1))), OutagePolicy.FALLBACK);

    private static DocumentedLimits exampleLimits() {
        DocumentedLimits.Limit global = new DocumentedLimits.Limit(GLOBAL_ANONYMOUS, "global", "client-address", false,
                Map.of(), null);
        DocumentedLimits.Limit reports = new DocumentedLimits.Limit(REPORTS, "RateLimited", "resolver", true,
                Map.of("pro", REPORTS.withPlan("pro", List.of(new Limit(50, Duration.ofMinutes(1))), 30)),
                "com.example.TenantPlans");
        DocumentedLimits.Limit login = new DocumentedLimits.Limit(LOGIN, "RateLimitedBy", null, false, Map.of(), null);
        DocumentedLimits.Limit projects = new DocumentedLimits.Limit(PROJECTS, "RateLimited", "identity", false,
                Map.of(), null);
        return new DocumentedLimits(true, List.of("/api/"), List.of(global), List.of(
                new DocumentedLimits.Operation("GET", "/reports", "Reports#report(String)", List.of(reports)),
                new DocumentedLimits.Operation("POST", "/login", "Login#login(Request)", List.of(login)),
                new DocumentedLimits.Operation("GET", "/projects/{id}", "Projects#project(String)",
                        List.of(projects))));
    }

    /** {@code /api/reports} GET, {@code /api/login} POST, {@code /api/projects/{id}} GET and {@code /health} GET. */
    private static OpenAPI exampleDocument() {
        Paths paths = OASFactory.createObject(Paths.class);
        paths.addPathItem("/api/reports", item(PathItem.HttpMethod.GET));
        paths.addPathItem("/api/login", item(PathItem.HttpMethod.POST));
        paths.addPathItem("/api/projects/{id}", item(PathItem.HttpMethod.GET));
        paths.addPathItem("/health", item(PathItem.HttpMethod.GET));
        return OASFactory.createObject(OpenAPI.class).paths(paths);
    }

    private static PathItem item(PathItem.HttpMethod method) {
        Operation operation = OASFactory.createObject(Operation.class).responses(OASFactory.createObject(
                APIResponses.class).addAPIResponse("200", OASFactory.createObject(APIResponse.class)
                .description("OK")));
        PathItem item = OASFactory.createObject(PathItem.class);
        item.setOperation(method, operation);
        return item;
    }

    private static Operation operation(OpenAPI document, String path, PathItem.HttpMethod method) {
        return document.getPaths().getPathItem(path).getOperations().get(method);
    }

    private static String ref(Operation operation, String status) {
        APIResponse response = operation.getResponses().getAPIResponse(status);
        return response == null ? null : response.getRef();
    }

    @Test
    @DisplayName("the test runs on the MicroProfile OpenAPI version the build asked for (3.1 by default, 4.x in openapi-4)")
    void runsOnTheExpectedVersion() throws Exception {
        Class<?> typeOfGetType = Schema.class.getMethod("getType").getReturnType();
        if ("4".equals(System.getProperty("openapi.expected-major"))) {
            assertThat(typeOfGetType).as("MicroProfile OpenAPI 4.x: a list of types").isEqualTo(List.class);
        } else {
            assertThat(typeOfGetType).isEqualTo(Schema.SchemaType.class);
        }
    }

    @Test
    @DisplayName("each limited operation gets a 429 referring to the refusal; a 400 where a key can be missing; a 503 "
            + "where a bucket fails closed; an operation outside the prefixes and without binding is untouched")
    void responses() {
        OpenAPI document = exampleDocument();

        assertThat(OpenApiLimits.addTo(document, exampleLimits())).isEqualTo(3);

        Operation reports = operation(document, "/api/reports", PathItem.HttpMethod.GET);
        assertThat(ref(reports, "429")).isEqualTo("#/components/responses/RateLimitExceeded");
        assertThat(ref(reports, "400")).isEqualTo("#/components/responses/RateLimitKeyMissing");
        assertThat(ref(reports, "503")).as("reports falls back to memory in an outage").isNull();
        Operation login = operation(document, "/api/login", PathItem.HttpMethod.POST);
        assertThat(ref(login, "429")).isEqualTo("#/components/responses/RateLimitExceeded");
        assertThat(ref(login, "503")).isEqualTo("#/components/responses/RateLimiterUnavailable");
        assertThat(ref(login, "400")).isNull();
        assertThat(operation(document, "/api/projects/{id}", PathItem.HttpMethod.GET).getResponses()
                .getAPIResponse("429").getRef()).isEqualTo("#/components/responses/RateLimitExceeded");
        Operation health = operation(document, "/health", PathItem.HttpMethod.GET);
        assertThat(health.getResponses().getAPIResponses()).containsOnlyKeys("200");
        assertThat(health.getExtensions()).isNullOrEmpty();
    }

    @Test
    @DisplayName("a concurrency bucket in x-ratelimit: its calls in flight and lease instead of limits, as it counts no "
            + "window")
    void concurrencyBucket() {
        dev.ratelimiter.Bucket exports = dev.ratelimiter.Bucket.concurrency("exports", 2, java.time.Duration.ofSeconds(30),
                dev.ratelimiter.OutagePolicy.FALLBACK);
        assertThat(OpenApiLimits.describe(new dev.ratelimiter.internal.cdi.openapi.DocumentedLimits.Limit(exports,
                "RateLimited", "resolver", true, Map.of(), null))).isEqualTo(Map.of("bucket", "exports", "source",
                "RateLimited", "key", "resolver", "concurrency", 2L, "lease", "PT30S", "algorithm", "concurrency",
                "on-outage", "fallback"));
    }

    @Test
    @DisplayName("x-ratelimit names each bucket in decision order: global filter first, its limits and ISO-8601 "
            + "windows, algorithm, burst, plans and plan resolver")
    void extension() {
        OpenAPI document = exampleDocument();
        OpenApiLimits.addTo(document, exampleLimits());

        Object reports = operation(document, "/api/reports", PathItem.HttpMethod.GET).getExtensions()
                .get("x-ratelimit");
        assertThat(reports).isEqualTo(List.of(
                Map.of("bucket", "api-anonymous", "source", "global", "key", "client-address",
                        "limits", List.of(Map.of("limit", 120L, "window", "PT1M")), "algorithm", "fixed-window",
                        "on-outage", "fallback"),
                Map.of("bucket", "reports", "source", "RateLimited", "key", "resolver",
                        "limits", List.of(Map.of("limit", 5L, "window", "PT1M")), "algorithm", "token-bucket",
                        "burst", 3L, "on-outage", "fallback",
                        "plans", Map.of("pro", Map.of("limits", List.of(Map.of("limit", 50L, "window", "PT1M")),
                                "algorithm", "token-bucket", "burst", 30L)),
                        "plan-resolver", "com.example.TenantPlans")));
        Object projects = operation(document, "/api/projects/{id}", PathItem.HttpMethod.GET).getExtensions()
                .get("x-ratelimit");
        assertThat(projects).asList().element(1).isEqualTo(Map.of("bucket", "projects", "source", "RateLimited",
                "key", "identity", "limits", List.of(Map.of("limit", 3L, "window", "PT10S"),
                        Map.of("limit", 10L, "window", "PT1H")), "algorithm", "fixed-window",
                "on-outage", "fallback"));
        Object login = operation(document, "/api/login", PathItem.HttpMethod.POST).getExtensions().get("x-ratelimit");
        assertThat(((List<?>) login).stream().map(limit -> (Object) ((Map<?, ?>) limit).get("bucket")).toList())
                .containsExactly("api-anonymous", "login");
        assertThat(login).asList().element(1).isEqualTo(Map.of("bucket", "login", "source", "RateLimitedBy",
                "limits", List.of(Map.of("limit", 5L, "window", "PT15M")), "algorithm", "fixed-window",
                "on-outage", "fail-closed"));
    }

    @Test
    @DisplayName("the components: the three refusals, their headers with typed schemas, and the problem schema "
            + "with the fields RateLimitResponses writes")
    void components() throws Exception {
        OpenAPI document = exampleDocument();
        OpenApiLimits.addTo(document, exampleLimits());

        Components components = document.getComponents();
        assertThat(components.getResponses()).containsOnlyKeys("RateLimitExceeded", "RateLimiterUnavailable",
                "RateLimitKeyMissing");
        APIResponse exceeded = components.getResponses().get("RateLimitExceeded");
        assertThat(exceeded.getHeaders()).containsOnlyKeys("RateLimit", "RateLimit-Policy", "Retry-After");
        assertThat(exceeded.getHeaders().get("Retry-After").getRef()).isEqualTo("#/components/headers/Retry-After");
        assertThat(exceeded.getContent().getMediaType("application/problem+json").getSchema().getRef())
                .isEqualTo("#/components/schemas/RateLimitProblem");
        assertThat(components.getResponses().get("RateLimitKeyMissing").getHeaders()).isNullOrEmpty();
        assertThat(type(components.getHeaders().get("Retry-After").getSchema())).isEqualTo(Schema.SchemaType.INTEGER);
        assertThat(type(components.getHeaders().get("RateLimit").getSchema())).isEqualTo(Schema.SchemaType.STRING);

        Schema problem = components.getSchemas().get("RateLimitProblem");
        assertThat(type(problem)).isEqualTo(Schema.SchemaType.OBJECT);
        assertThat(problem.getProperties()).containsOnlyKeys("type", "title", "status", "detail",
                "violated-policies", "bucket", "retryAfter");
        assertThat(type(problem.getProperties().get("violated-policies"))).isEqualTo(Schema.SchemaType.ARRAY);
        assertThat(type(problem.getProperties().get("violated-policies").getItems()))
                .isEqualTo(Schema.SchemaType.STRING);
        assertThat(type(problem.getProperties().get("retryAfter"))).isEqualTo(Schema.SchemaType.INTEGER);
        assertThat(components.getSchemas().get("RateLimitKeyMissingProblem").getProperties())
                .containsOnlyKeys("type", "title", "status", "detail", "bucket");
    }

    @Test
    @DisplayName("only the refusals some operation refers to are components: no 503 without a fail-closed bucket, "
            + "no 400 without a key that can be missing")
    void onlyReferencedComponents() {
        DocumentedLimits globalOnly = new DocumentedLimits(true, List.of("/api/"), exampleLimits().global(),
                List.of());
        OpenAPI document = exampleDocument();

        OpenApiLimits.addTo(document, globalOnly);

        assertThat(document.getComponents().getResponses()).containsOnlyKeys("RateLimitExceeded");
        assertThat(document.getComponents().getSchemas()).containsOnlyKeys("RateLimitProblem");
        assertThat(document.getComponents().getHeaders()).containsOnlyKeys("RateLimit", "RateLimit-Policy",
                "Retry-After");
    }

    @Test
    @DisplayName("the header fields are the ones ratelimiter.headers.fields names: with x-ratelimit alone, the X-RateLimit "
            + "fields and Retry-After, no draft-10 field")
    void configuredHeaderFields() {
        DocumentedLimits limits = exampleLimits();
        DocumentedLimits xOnly = new DocumentedLimits(true, limits.pathPrefixes(), limits.global(), List.of(),
                java.util.EnumSet.of(dev.ratelimiter.internal.core.settings.HeaderFields.X_RATELIMIT));
        OpenAPI document = exampleDocument();

        OpenApiLimits.addTo(document, xOnly);

        assertThat(document.getComponents().getHeaders()).containsOnlyKeys("X-RateLimit-Limit",
                "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After");
        assertThat(document.getComponents().getResponses().get("RateLimitExceeded").getHeaders().keySet())
                .containsExactly("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After");
        assertThat(document.getComponents().getHeaders().get("X-RateLimit-Reset").getDescription())
                .contains("Unix time in seconds");
    }

    @Test
    @DisplayName("run twice (build time and startup), nothing is added twice; an application's own 429 is kept")
    void idempotentAndKeepsTheApplicationsOwn() {
        OpenAPI document = exampleDocument();
        APIResponse own = OASFactory.createObject(APIResponse.class).description("Slow down");
        operation(document, "/api/login", PathItem.HttpMethod.POST).getResponses().addAPIResponse("429", own);

        OpenApiLimits.addTo(document, exampleLimits());
        assertThat(OpenApiLimits.addTo(document, exampleLimits())).isZero();

        Operation login = operation(document, "/api/login", PathItem.HttpMethod.POST);
        assertThat(login.getResponses().getAPIResponse("429").getDescription()).isEqualTo("Slow down");
        assertThat((List<?>) login.getExtensions().get("x-ratelimit")).hasSize(2);
    }

    @Test
    @DisplayName("the application's path is found from the document: resource methods matched under / and under "
            + "/v2, never a method of another path that merely ends alike")
    void applicationPath() {
        DocumentedLimits resourcesOnly = new DocumentedLimits(true, List.of(), List.of(),
                exampleLimits().operations());
        OpenAPI atRoot = exampleDocument();
        atRoot.getPaths().addPathItem("/reports", item(PathItem.HttpMethod.GET));
        atRoot.getPaths().addPathItem("/login", item(PathItem.HttpMethod.POST));
        atRoot.getPaths().addPathItem("/projects/{id}", item(PathItem.HttpMethod.GET));

        OpenApiLimits.addTo(atRoot, resourcesOnly);

        assertThat(operation(atRoot, "/reports", PathItem.HttpMethod.GET).getExtensions()).containsKey("x-ratelimit");
        assertThat(operation(atRoot, "/login", PathItem.HttpMethod.POST).getExtensions()).containsKey("x-ratelimit");
        assertThat(operation(atRoot, "/api/reports", PathItem.HttpMethod.GET).getExtensions())
                .as("three methods are under /, so /api/reports is another resource").isNullOrEmpty();

        OpenAPI underV2 = OASFactory.createObject(OpenAPI.class).paths(OASFactory.createObject(Paths.class)
                .addPathItem("/v2/reports/", item(PathItem.HttpMethod.GET))
                .addPathItem("/v2/login", item(PathItem.HttpMethod.POST))
                .addPathItem("/v2/x/login", item(PathItem.HttpMethod.GET)));
        OpenApiLimits.addTo(underV2, resourcesOnly);
        assertThat(operation(underV2, "/v2/reports/", PathItem.HttpMethod.GET).getExtensions())
                .as("a trailing slash").containsKey("x-ratelimit");
        assertThat(operation(underV2, "/v2/x/login", PathItem.HttpMethod.GET).getExtensions())
                .as("GET, not the POST of /login").isNullOrEmpty();
    }

    @Test
    @DisplayName("off (ratelimiter.openapi.enabled=false or ratelimiter.enabled=false): the document is unchanged")
    void off() {
        OpenAPI document = exampleDocument();

        assertThat(OpenApiLimits.addTo(document, DocumentedLimits.NONE)).isZero();

        assertThat(document.getComponents()).isNull();
        assertThat(operation(document, "/api/reports", PathItem.HttpMethod.GET).getResponses().getAPIResponses())
                .containsOnlyKeys("200");
    }

    /** The schema's one type, read as each version returns it (a list of one in 4.x). */
    private static Object type(Schema schema) throws Exception {
        Method getType = Schema.class.getMethod("getType");
        Object type = getType.invoke(schema);
        if (type instanceof List<?> types) {
            assertThat(types).hasSize(1);
            return types.get(0);
        }
        return type;
    }
}
