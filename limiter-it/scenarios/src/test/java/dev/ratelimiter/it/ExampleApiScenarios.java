package dev.ratelimiter.it;

import dev.ratelimiter.it.app.RefusalStyleFilter;
import dev.ratelimiter.it.app.StyledRefusals;
import dev.ratelimiter.it.ops.MetricNameCheck;
import dev.ratelimiter.it.ops.OpsQueries;
import dev.ratelimiter.it.ops.ScrapedSeries;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example API's behaviour over real HTTP, written once for every server. A server module extends this class,
 * deploys the example with {@code ratelimiter.trusted-proxies} including 127.0.0.1, and returns the root URL of
 * the deployment from {@link #baseUri()} (ending with {@code /}).
 *
 * <p>Scenarios are independent: each uses its own client address and its own accounts.
 */
@ExtendWith(ScenariosNotRun.class)
public abstract class ExampleApiScenarios {

    /** The deployment's root, such as {@code http://localhost:8080/}. */
    protected abstract URI baseUri();

    /** The backend the deployment uses, as the readiness check names it. */
    protected String backend() {
        return "memory";
    }

    /** The readiness path of the server, relative to the root: {@code health/ready} on Payara. */
    protected String readinessPath() {
        return "health/ready";
    }

    /** The metrics path of the server, relative to the root: {@code metrics} on Payara. */
    protected String metricsPath() {
        return "metrics";
    }

    /**
     * The server's metrics as Prometheus would store them, in the Prometheus text format, reflecting every request
     * made before the call: by default the body of {@link #metricsPath()} (which must answer 200). A server that
     * exports rather than being scraped (MicroProfile Telemetry over OTLP) overrides it with its export after the
     * call, translated by OpenTelemetry's Prometheus naming rules.
     */
    protected String scrape() {
        HttpResponse<String> response = client().get(metricsPath());
        assertThat(response.statusCode()).as("GET %s", metricsPath()).isEqualTo(200);
        return response.body();
    }

    /**
     * Why {@link #exportsTwoAtOnce} runs on one deployment per server runtime (Payara Micro 6 and 7, Quarkus, WildFly
     * and WildFly Preview in memory, Open Liberty on PostgreSQL) and not on the others: a permit is taken and given
     * back by the interceptor, the same on a runtime's every deployment, and each store's permits are the store
     * contract's ({@code PermitCases}); six seconds of exports each is what it would add.
     */
    protected static final String CONCURRENCY_ELSEWHERE = "a permit's path is the same on this runtime's deployment "
            + "that runs it, and the store's permits are its contract's (ExampleApiScenarios.CONCURRENCY_ELSEWHERE)";

    /**
     * The scenarios that wait out a window of the example in real time (10 s for the burst window): they run on
     * Payara Micro 6 in memory and on Open Liberty on PostgreSQL, and the other deployments report them not run. The
     * store times the window (its rules are its contract's), and what a server changes (the interceptor's refusal,
     * the 429 and both windows' fields) meets it in {@code burstAndSustainedWindows}, which does not wait and runs
     * everywhere (CONTRIBUTING.md#the-coverage-matrix); about 40 s of CI's 30-minute budget.
     */
    protected static final Map<String, String> WAITS_ELSEWHERE = Map.of("burstWindowEndsBeforeTheHour", "waits 10 s "
            + "for a window the store times; runs on Payara Micro 6 in memory and Open Liberty on PostgreSQL, and this "
            + "server's refusal and both windows' fields run in burstAndSustainedWindows, which does not wait "
            + "(ExampleApiScenarios.WAITS_ELSEWHERE)");

    /**
     * What a deployment on a shared store (Valkey, PostgreSQL) runs beside its runtime's deployment that runs every
     * scenario: the scenarios whose store calls differ (a cost, a sliding window, a token bucket, a calendar quota,
     * a refund, a settled cost, a reset, a block, a read without spending, a reservation and a hold) and the store's
     * readiness and metrics. The rest take the same path through the interceptor and the filter whatever the store,
     * and each store's rules are its contract's ({@code RateLimiterContract}), so they run where they can fail: on the runtime's first
     * deployment (CONTRIBUTING.md#the-coverage-matrix).
     */
    protected static final Set<String> ON_A_SHARED_STORE = Set.of("loginLimitedPerAccount", "exportCost",
            "searchLimitedBySlidingWindow", "reportsLimitedPerTenant", "monthlyQuotaPerPlan",
            "modelTokensSettledAfterTheCall", "loginAddressCountsFailuresOnly", "successfulLoginResets",
            "loginLockedAfterRefusal", "usageReadWithoutSpending", "partnerCallsWaitAndHold", "readiness", "metrics");

    /**
     * What an application that lists its classes ({@code ListedApplication}: RESTEasy's scanning off) runs beside its
     * runtime's deployment that runs every scenario: the scenarios that need the library's providers registered
     * (the global filter, the interceptor's refusals mapped to 429, the replaced refusals, the response headers),
     * which is all such an application changes.
     */
    protected static final Set<String> IN_A_LISTED_APPLICATION = Set.of("anonymousGlobalLimit",
            "authenticatedKeyedByPrincipal", "featureAlsoRegisteredCountsOnce", "loginLimitedPerAccount",
            "headersOnSuccess", "replacedRefusalOfTheInterceptor", "replacedRefusalOfTheGlobalFilter",
            "completionStageLimited", "preflightNotCounted", "malformedBody", "readiness");

    /**
     * The scenarios not run on a deployment that runs only {@code kept}, each with the reason, with {@code others}
     * (reasons of the deployment's own) taking precedence.
     *
     * @param kept   the scenarios it runs, by method name: {@link #ON_A_SHARED_STORE} or
     *               {@link #IN_A_LISTED_APPLICATION}
     * @param others the deployment's own reasons, for scenarios it cannot run
     * @return method name to reason
     */
    protected static Map<String, String> runOnly(Set<String> kept, Map<String, String> others) {
        Map<String, String> notRun = new TreeMap<>();
        for (Method method : ExampleApiScenarios.class.getDeclaredMethods()) {
            if (method.isAnnotationPresent(Test.class) && !kept.contains(method.getName())) {
                notRun.put(method.getName(), "runs on this runtime's deployment that runs every scenario: its path "
                        + "does not change with this one (ExampleApiScenarios.ON_A_SHARED_STORE, IN_A_LISTED_APPLICATION)");
            }
        }
        for (String waiting : WAITS_ELSEWHERE.keySet()) {
            if (notRun.containsKey(waiting)) {
                notRun.put(waiting, WAITS_ELSEWHERE.get(waiting)); // where it runs is WAITS_ELSEWHERE's to say
            }
        }
        notRun.putAll(others);
        return notRun;
    }

    /**
     * Scenarios this server's deployment cannot run, by method name, each with the reason (reported as not run);
     * none by default.
     */
    protected Map<String, String> scenariosNotRun() {
        return Map.of();
    }

    /** A client with an address of its own (sent as {@code X-Forwarded-For} from a trusted proxy). */
    protected ExampleApi client() {
        return ExampleApi.newClient(baseUri());
    }

    @Test
    @DisplayName("120 anonymous GET /api/projects are allowed, the 121st is 429 with Retry-After, RateLimit headers and a problem naming the bucket")
    void anonymousGlobalLimit() {
        ExampleApi client = client();
        for (int i = 1; i <= 120; i++) {
            HttpResponse<String> response = client.get("api/projects");
            assertThat(response.statusCode()).as("request %d", i).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit").orElseThrow())
                    .startsWith("\"api-anonymous\";r=" + (120 - i) + ";t=");
        }

        HttpResponse<String> refused = client.get("api/projects");

        assertThat(refused.statusCode()).isEqualTo(429);
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).isBetween(1L, 60L);
        assertThat(refused.headers().firstValue("RateLimit-Policy")).contains("\"api-anonymous\";q=120;w=60");
        assertThat(refused.headers().firstValue("RateLimit")).contains("\"api-anonymous\";r=0;t=" + retryAfter);
        assertQuotaExceeded(refused, "api-anonymous");

        assertThat(client().get("api/projects").statusCode()).as("another client").isEqualTo(200);
    }

    @Test
    @DisplayName("with the library's feature registered beside scanning, each request counts once")
    void featureAlsoRegisteredCountsOnce() {
        ExampleApi client = client();
        for (int i = 1; i <= 3; i++) {
            assertThat(client.get("api/projects").headers().firstValue("RateLimit").orElseThrow())
                    .as("request %d", i).startsWith("\"api-anonymous\";r=" + (120 - i) + ";");
        }
    }

    @Test
    @DisplayName("a class-level @RateLimited on a subclass limits the GET it inherits: 200, 200, 200, then 429 in bucket imports")
    void inheritedMethodLimitedByClassBinding() {
        assertRefusedAfterThree(client(), "api/items");
    }

    @Test
    @DisplayName("a @RateLimited CompletionStage resource method completing on another thread: 3 allowed with headers, then 429")
    void completionStageLimited() {
        assertRefusedAfterThree(client(), "api/async/stage");
    }

    @Test
    @DisplayName("a refusal wrapped in CompletionException by thenApply is still 429 with the RateLimit headers")
    void completionStageWrappedRefusal() {
        assertRefusedAfterThree(client(), "api/async/wrapped");
    }

    /**
     * Three GETs of {@code path} allowed with bucket {@code imports} (3 per hour) in their RateLimit headers, the
     * fourth refused with 429, the headers and a problem naming the bucket.
     */
    protected static void assertRefusedAfterThree(ExampleApi client, String path) {
        assertRefusedAfter(client, path, "imports", 3);
    }

    /** {@code limit} GETs of {@code path} allowed in {@code bucket}, the next one refused with 429. */
    public static void assertRefusedAfter(ExampleApi client, String path, String bucket, int limit) {
        for (int i = 1; i <= limit; i++) {
            HttpResponse<String> response = client.get(path);
            assertThat(response.statusCode()).as("request %d: %s", i, response.body()).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit").orElseThrow()).as("request %d", i)
                    .contains("\"" + bucket + "\";r=" + (limit - i) + ";");
        }

        HttpResponse<String> refused = client.get(path);

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        assertQuotaExceeded(refused, bucket);
        assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow())
                .contains("\"" + bucket + "\";q=" + limit);
        assertThat(refused.headers().firstValue("RateLimit").orElseThrow()).contains("\"" + bucket + "\";r=0;");
    }

    /**
     * The library's own 429: {@code application/problem+json} (RFC 9457) of draft-ietf-httpapi-ratelimit-headers-10's
     * problem type {@code quota-exceeded}, {@code violated-policies} naming the bucket's policy as RateLimit-Policy
     * does, {@code bucket}, and {@code retryAfter} equal to {@code Retry-After}; not to be stored.
     */
    public static void assertQuotaExceeded(HttpResponse<String> refused, String bucket) {
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonObject problem = ExampleApi.json(refused);
        assertThat(problem.getString("type"))
                .isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
        assertThat(problem.getString("title")).isEqualTo("Quota Exceeded");
        assertThat(problem.getInt("status")).isEqualTo(429);
        assertThat(problem.getString("detail")).contains("'" + bucket + "'");
        assertThat(problem.getJsonArray("violated-policies").getValuesAs(JsonString.class))
                .extracting(JsonString::getString).containsExactly(bucket);
        assertThat(problem.getString("bucket")).isEqualTo(bucket);
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).isPositive();
        assertThat(problem.getJsonNumber("retryAfter").longValueExact()).isEqualTo(retryAfter);
        assertThat(refused.headers().firstValue("Cache-Control")).contains("no-store");
    }

    @Test
    @DisplayName("RateLimits.consume in a resource joins the response's RateLimit headers: 3 allowed with bucket imports counted down, then the refusal it throws is 429")
    void programmaticDecisionInHeaders() {
        ExampleApi client = client();
        String path = "api/decided/key-" + UUID.randomUUID();
        HttpResponse<String> first = client.get(path);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy"))
                .contains("\"api-anonymous\";q=120;w=60, \"imports\";q=3;w=3600");
        assertThat(first.headers().firstValue("RateLimit").orElseThrow()).contains("\"imports\";r=2;t=3600");

        assertRefusedAfter(client(), "api/decided/key-" + UUID.randomUUID(), "imports", 3);
    }

    @Test
    @DisplayName("a refusal the application throws with RateLimitException.of gets the interceptor's 429: same problem, same headers")
    void programmaticRefusalAsTheInterceptors() {
        ExampleApi client = client();
        String path = "api/decided/key-" + UUID.randomUUID();
        ExampleApi other = client();
        for (int i = 1; i <= 3; i++) {
            assertThat(client.get(path).statusCode()).as("decided %d", i).isEqualTo(200);
            assertThat(other.get("api/items").statusCode()).as("intercepted %d", i).isEqualTo(200);
        }

        HttpResponse<String> thrown = client.get(path);
        HttpResponse<String> intercepted = other.get("api/items");

        assertQuotaExceeded(thrown, "imports");
        assertQuotaExceeded(intercepted, "imports");
        for (String member : new String[] {"type", "title", "status", "violated-policies", "bucket"}) {
            assertThat(ExampleApi.json(thrown).get(member)).as(member)
                    .isEqualTo(ExampleApi.json(intercepted).get(member));
        }
        assertThat(ExampleApi.json(thrown).keySet()).isEqualTo(ExampleApi.json(intercepted).keySet());
        for (String header : new String[] {"RateLimit-Policy", "Cache-Control", "Content-Type"}) {
            assertThat(thrown.headers().firstValue(header)).as(header)
                    .isEqualTo(intercepted.headers().firstValue(header));
        }
        assertThat(thrown.headers().firstValue("RateLimit").orElseThrow()).contains("\"imports\";r=0;");
    }

    @Test
    @DisplayName("the application's RateLimitRefusalHandler replaces an interceptor's 429; Retry-After, Cache-Control and the RateLimit headers stay")
    void replacedRefusalOfTheInterceptor() {
        ExampleApi client = client().withHeader(RefusalStyleFilter.HEADER, "plain");
        for (int i = 1; i <= 3; i++) {
            assertThat(client.get("api/items").statusCode()).as("request %d", i).isEqualTo(200);
        }

        assertReplaced(client.get("api/items"), "imports", 3, 3600);
    }

    @Test
    @DisplayName("the application's RateLimitRefusalHandler replaces the global filter's 429 too")
    void replacedRefusalOfTheGlobalFilter() {
        ExampleApi client = client().withHeader(RefusalStyleFilter.HEADER, "plain");
        for (int i = 1; i <= 120; i++) {
            assertThat(client.get("api/projects").statusCode()).as("request %d", i).isEqualTo(200);
        }

        assertReplaced(client.get("api/projects"), "api-anonymous", 120, 60);
    }

    @Test
    @DisplayName("a RateLimitRefusalHandler that throws gives way to the library's own 429, never a 500")
    void failingRefusalHandler() {
        ExampleApi client = client().withHeader(RefusalStyleFilter.HEADER, "broken");
        for (int i = 1; i <= 3; i++) {
            assertThat(client.get("api/items").statusCode()).as("request %d", i).isEqualTo(200);
        }

        assertQuotaExceeded(client.get("api/items"), "imports");
    }

    /** The scenario application's replacement ({@link StyledRefusals}), with the library's headers added. */
    private static void assertReplaced(HttpResponse<String> refused, String bucket, int limit, int window) {
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        assertThat(refused.body()).isEqualTo("Slow down: " + bucket + " allows " + limit + " per " + window + " s.");
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/plain"));
        assertThat(refused.headers().firstValue(StyledRefusals.REFUSED_BY)).contains("application");
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()))
                .isBetween(1L, (long) window);
        assertThat(refused.headers().firstValue("Cache-Control")).contains("no-store");
        assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow())
                .contains("\"" + bucket + "\";q=" + limit + ";w=" + window);
        assertThat(refused.headers().firstValue("RateLimit").orElseThrow()).contains("\"" + bucket + "\";r=0;");
    }

    @Test
    @DisplayName("GET /api/projects/jrl, 3 per 10 s and 10 per hour: the 4th call within 10 s is 429 by the burst window, which spends nothing of the hour, and both windows are in the fields")
    void burstAndSustainedWindows() {
        spendTheBurst(client());
    }

    @Test
    @DisplayName("GET /api/projects/jrl, 3 per 10 s and 10 per hour: after the burst window ends the call passes with 6 left in the hour")
    void burstWindowEndsBeforeTheHour() {
        ExampleApi client = client();
        spendTheBurst(client);
        HttpResponse<String> afterBurst = org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> client.get("api/projects/jrl"), response -> response.statusCode() == 200);
        assertThat(afterBurst.headers().firstValue("RateLimit").orElseThrow())
                .contains("\"projects-10s\";r=2;", "\"projects-1h\";r=6;");
    }

    /** Three calls of {@code client} to a project, each counted in both windows, then the 4th refused by the burst. */
    private static void spendTheBurst(ExampleApi client) {
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> response = client.get("api/projects/jrl");
            assertThat(response.statusCode()).as("call %d: %s", i, response.body()).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit").orElseThrow()).as("call %d", i)
                    .contains("\"projects-10s\";r=" + (3 - i) + ";", "\"projects-1h\";r=" + (10 - i) + ";");
        }
        HttpResponse<String> refused = client.get("api/projects/jrl");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("projects");
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 10L);
        assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow())
                .contains("\"projects-10s\";q=3;w=10", "\"projects-1h\";q=10;w=3600");
        assertThat(refused.headers().firstValue("RateLimit").orElseThrow())
                .as("the refusal counted in neither window").contains("\"projects-10s\";r=0;", "\"projects-1h\";r=7;");
    }

    @Test
    @DisplayName("GET /api/quotes/jrl?account=A, 2 a second with max-wait 3 s, the partner 3 in 10 s: the 3rd call "
            + "waits for its turn and passes; the 4th reaches the partner, whose 429 with Retry-After comes back and "
            + "holds the account: its 5th is refused at once by bucket partner until then; another account passes")
    void partnerCallsWaitAndHold() {
        ExampleApi client = client();
        String account = "acct-" + UUID.randomUUID();
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> response = client.get("api/quotes/jrl?account=" + account);
            assertThat(response.statusCode()).as("call %d waited for its turn: %s", i, response.body())
                    .isEqualTo(200);
            assertThat(ExampleApi.json(response).getString("quote")).isEqualTo("JRL 101.25");
        }
        HttpResponse<String> partnerRefused = client.get("api/quotes/jrl?account=" + account);
        assertThat(partnerRefused.statusCode()).as("the partner's own 429: %s", partnerRefused.body()).isEqualTo(429);
        assertThat(Long.parseLong(partnerRefused.headers().firstValue("Retry-After").orElseThrow()))
                .isBetween(1L, 10L);

        HttpResponse<String> held = client.get("api/quotes/jrl?account=" + account);
        assertThat(held.statusCode()).as(held.body()).isEqualTo(429);
        assertThat(ExampleApi.json(held).getString("bucket")).as("held by the library, no partner call")
                .isEqualTo("partner");
        assertThat(Long.parseLong(held.headers().firstValue("Retry-After").orElseThrow()))
                .as("the hold's end: beyond max-wait, so refused at once").isBetween(4L, 10L);

        HttpResponse<String> other = client.get("api/quotes/jrl?account=acct-" + UUID.randomUUID());
        assertThat(other.statusCode()).as(other.body()).isEqualTo(200);
    }

    @Test
    @DisplayName("an export costs 10 of the bucket's 25: two exports pass, the third is 429 and the 5 left stay (RateLimit r=5)")
    void exportCost() {
        ExampleApi client = client();
        for (int i = 1; i <= 2; i++) {
            HttpResponse<String> response = client.get("api/projects/jrl/export");
            assertThat(response.statusCode()).as("export %d: %s", i, response.body()).isEqualTo(200);
            assertThat(response.body()).contains("jrl,Jakarta Rate Limiter");
            assertThat(response.headers().firstValue("RateLimit").orElseThrow())
                    .contains("\"export\";r=" + (25 - 10 * i) + ";");
        }
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> refused = client.get("api/projects/jrl/export");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
            assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("export");
            assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow())
                    .contains("\"export\";q=25;w=3600");
            assertThat(refused.headers().firstValue("RateLimit").orElseThrow())
                    .as("refused exports consume nothing").contains("\"export\";r=5;");
        }
    }

    @Test
    @DisplayName("allowed responses carry RateLimit-Policy and RateLimit")
    void headersOnSuccess() {
        HttpResponse<String> response = client().get("api/projects");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("RateLimit-Policy")).contains("\"api-anonymous\";q=120;w=60");
        assertThat(response.headers().firstValue("RateLimit")).contains("\"api-anonymous\";r=119;t=60");
    }

    @Test
    @DisplayName("the 6th login attempt for one account is 429 while another account is still allowed")
    void loginLimitedPerAccount() {
        ExampleApi client = client();
        String account = "mallory-" + UUID.randomUUID();
        for (int i = 1; i <= 5; i++) {
            assertThat(client.login(account, "guess-" + i).statusCode()).as("attempt %d", i).isEqualTo(401);
        }

        HttpResponse<String> refused = client.login(account, "guess-6");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("login");
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).as("the lock set by the refusal").isBetween(3_590L, 3_600L);
        assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow())
                .contains("\"login\";q=5;w=900");
        assertThat(client.login("other-" + UUID.randomUUID(), "guess").statusCode()).isEqualTo(401);
        assertThat(client().login(account, "from-elsewhere").statusCode())
                .as("the account is limited from every address").isEqualTo(429);
    }

    @Test
    @DisplayName("the refusal of an account's 6th attempt locks it for an hour (docs/guide.md#blocks-after-a-refusal): "
            + "Retry-After and RateLimit count to the lock's end, not the window's, and the right password is refused "
            + "too, from any address")
    void loginLockedAfterRefusal() {
        ExampleApi client = client();
        for (int i = 1; i <= 5; i++) {
            assertThat(client.login("dave", "guess-" + i).statusCode()).as("attempt %d", i).isEqualTo(401);
        }

        HttpResponse<String> refused = client.login("dave", "guess-6");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("login");
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()))
                .as("an hour, the lock's length").isBetween(3_590L, 3_600L);
        assertThat(refused.headers().firstValue("RateLimit").orElseThrow()).containsPattern("\"login\";r=0;t=(3600|359\\d)");

        HttpResponse<String> locked = client().login("dave", "drummer");
        assertThat(locked.statusCode()).as("the right password, from another address").isEqualTo(429);
        assertThat(ExampleApi.json(locked).getString("bucket")).isEqualTo("login");
        assertThat(Long.parseLong(locked.headers().firstValue("Retry-After").orElseThrow()))
                .as("past the window's 15 minutes").isGreaterThan(900L);
    }

    @Test
    @DisplayName("login is limited per address (50) before per account (5): both in the headers; the address's refusal counts on no account")
    void loginLimitedPerAddressAndAccount() {
        ExampleApi client = client();
        String victim = "victim-" + UUID.randomUUID();
        HttpResponse<String> first = client.login("spray-0-" + UUID.randomUUID(), "guess");
        assertThat(first.statusCode()).isEqualTo(401);
        assertThat(first.headers().firstValue("RateLimit").orElseThrow())
                .as("every bucket decided, in order").contains("\"login-address\";r=49;t=900, \"login\";r=4;t=900");
        for (int i = 1; i < 50; i++) {
            assertThat(client.login("spray-" + i + "-" + UUID.randomUUID(), "guess").statusCode())
                    .as("attempt %d", i + 1).isEqualTo(401);
        }

        HttpResponse<String> refused = client.login(victim, "guess");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("login-address");
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).isBetween(1L, 900L);
        assertThat(refused.headers().firstValue("RateLimit").orElseThrow())
                .contains("\"login-address\";r=0;t=" + retryAfter).doesNotContain("\"login\";");
        assertThat(client().login(victim, "from-elsewhere").headers().firstValue("RateLimit").orElseThrow())
                .as("the refused attempt did not count on the account").contains("\"login\";r=4;");
    }

    @Test
    @DisplayName("/api/reports is a token bucket per X-Tenant through a key resolver: a burst of 3 per tenant from any "
            + "address, case-insensitive, then 429 until its next token (12 s), with the headers of a token bucket")
    void reportsLimitedPerTenant() {
        String tenant = "Acme-" + UUID.randomUUID();
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> response = client().getWith("api/reports", "X-Tenant",
                    i % 2 == 0 ? tenant.toUpperCase() : tenant);
            assertThat(response.statusCode()).as("request %d: %s", i, response.body()).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit").orElseThrow()).as("request %d", i)
                    .containsPattern("\"reports\";r=" + (3 - i) + ";t=(" + 12 * i + "|" + (12 * i - 1) + ")(,|$)");
        }

        HttpResponse<String> refused = client().getWith("api/reports", "X-Tenant", tenant.toLowerCase());

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("reports");
        assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow()).as("the rate: 5 per minute")
                .contains("\"reports\";q=5;w=60");
        assertThat(refused.headers().firstValue("Retry-After").orElseThrow()).as("one token: 12 s, never 0")
                .isIn("11", "12");
        assertThat(client().getWith("api/reports", "X-Tenant", "other-" + tenant).statusCode())
                .as("another tenant").isEqualTo(200);
    }

    @Test
    @DisplayName("POST /api/completions settles the model's tokens after the call "
            + "(docs/guide.md#costs-settled-after-the-call): of a tenant's 1 000 a day, a 4-word prompt spends 400 and "
            + "a 10-word one, let in with 600 left, 1 000; RateLimit's r counts what is left after each, "
            + "X-RateLimit-Cost never leaves the server, and the next call is 429 in bucket model-tokens, counted nowhere")
    void modelTokensSettledAfterTheCall() {
        String tenant = "Hooli-" + UUID.randomUUID();
        HttpResponse<String> first = client().postJsonWith("api/completions",
                "{\"prompt\":\"Summarize the quarterly report\"}", "X-Tenant", tenant);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(ExampleApi.json(first).getJsonNumber("tokens").longValue()).isEqualTo(400);
        assertThat(first.headers().firstValue("RateLimit-Policy").orElseThrow())
                .as("a calendar day: no w").containsPattern("\"model-tokens\";q=1000(,|$)");
        assertThat(first.headers().firstValue("RateLimit").orElseThrow()).contains("\"model-tokens\";r=600;");
        assertThat(first.headers().firstValue("X-RateLimit-Cost")).isEmpty();

        HttpResponse<String> second = client().postJsonWith("api/completions",
                "{\"prompt\":\"Draft a reply to every customer who wrote this week\"}", "X-Tenant",
                tenant.toUpperCase());
        assertThat(second.statusCode()).as("600 left: let in, %s", second.body()).isEqualTo(200);
        assertThat(ExampleApi.json(second).getJsonNumber("tokens").longValue()).isEqualTo(1_000);
        assertThat(second.headers().firstValue("RateLimit").orElseThrow()).contains("\"model-tokens\";r=0;");

        for (int i = 0; i < 2; i++) {
            HttpResponse<String> refused = client().postJsonWith("api/completions",
                    "{\"prompt\":\"Translate the summary\"}", "X-Tenant", tenant);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
            assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("model-tokens");
            assertThat(refused.headers().firstValue("RateLimit").orElseThrow()).contains("\"model-tokens\";r=0;");
        }
        HttpResponse<String> other = client().postJsonWith("api/completions",
                "{\"prompt\":\"Hello\"}", "X-Tenant", "other-" + tenant);
        assertThat(other.headers().firstValue("RateLimit").orElseThrow()).as("another tenant")
                .contains("\"model-tokens\";r=900;");
    }

    @Test
    @DisplayName("/api/exports (docs/guide.md#concurrency-limits): two exports of a tenant run at once; one started "
            + "meanwhile is refused with 429, Retry-After 1 and no permit left, another tenant's is not; once they "
            + "end, the tenant's permits are back")
    void exportsTwoAtOnce() throws Exception {
        String tenant = "Initech-" + UUID.randomUUID();
        ExampleApi client = client();
        HttpResponse<String> quick = client.postJsonWith("api/exports?seconds=0", "{}", "X-Tenant", tenant);
        assertThat(quick.statusCode()).as("an export of 0 s answers at once: %s", quick.body()).isEqualTo(200);
        java.util.concurrent.ExecutorService exports = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.List<java.util.concurrent.Future<HttpResponse<String>>> running = new java.util.ArrayList<>();
            for (int i = 0; i < 2; i++) {
                running.add(exports.submit(() -> client.postJsonWith("api/exports?seconds=6", "{}", "X-Tenant",
                        tenant)));
            }
            // An export of 0 s started before both run is let in and ends at once; the first one after is refused
            HttpResponse<String> refused = org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> client.postJsonWith("api/exports?seconds=0", "{}", "X-Tenant", tenant),
                            response -> response.statusCode() != 200 || running.stream().anyMatch(
                                    java.util.concurrent.Future::isDone));
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).contains("1");
            assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("exports");
            assertThat(ExampleApi.json(refused).getString("detail"))
                    .isEqualTo("Concurrency limit of bucket 'exports' reached: 2 calls in flight. Retry after 1 s.");
            assertThat(refused.headers().firstValue("RateLimit").orElseThrow()).contains("\"exports\";r=0;t=1");
            assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow())
                    .as("calls in flight: no window").containsPattern("\"exports\";q=2(,|$)");
            HttpResponse<String> other = client.postJsonWith("api/exports?seconds=0", "{}", "X-Tenant",
                    "other-" + tenant);
            assertThat(other.statusCode()).as("another tenant's permits: %s", other.body()).isEqualTo(200);

            for (java.util.concurrent.Future<HttpResponse<String>> export : running) {
                HttpResponse<String> done = export.get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
                assertThat(ExampleApi.json(done).getInt("seconds")).isEqualTo(6);
            }
            HttpResponse<String> after = client.postJsonWith("api/exports?seconds=0", "{}", "X-Tenant", tenant);
            assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
            assertThat(after.headers().firstValue("RateLimit").orElseThrow()).as("both permits back, one taken")
                    .contains("\"exports\";r=1;t=1");
        } finally {
            exports.shutdownNow();
        }
    }

    @Test
    @DisplayName("/api/reports under the example's plans (docs/plans.md): a tenant on no plan gets the free burst of 3 "
            + "(q=5), acme on pro goes on to its own 30 at once (q=50), globex's contract to its 20 (q=20)")
    void reportsPlansPerTenant() {
        String free = "initech-" + UUID.randomUUID();
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> response = client().getWith("api/reports", "X-Tenant", free);
            assertThat(response.statusCode()).as("free, request %d: %s", i, response.body()).isEqualTo(200);
        }
        HttpResponse<String> refused = client().getWith("api/reports", "X-Tenant", free);
        assertQuotaExceeded(refused, "reports");
        assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow()).as("free: 5 per minute")
                .contains("\"reports\";q=5;w=60");

        assertBurstOfPlan("acme", 30, 50);
        assertBurstOfPlan("globex", 20, 20);
    }

    @Test
    @DisplayName("/api/usage shows a tenant its reports quotas under its plan, spends none of it, and asks for the tenant")
    void usageReadWithoutSpending() {
        String tenant = "umbrella-" + UUID.randomUUID();
        JsonObject fresh = quota(tenant);
        assertThat(fresh.getString("bucket")).isEqualTo("reports");
        assertThat(fresh.getString("window")).isEqualTo("PT1M");
        assertThat(fresh.getInt("limit")).as("no plan: the free 5 per minute").isEqualTo(5);
        assertThat(fresh.getInt("remaining")).as("a full bucket: the free burst").isEqualTo(3);
        assertThat(quota(tenant).getInt("remaining")).as("reading spent nothing").isEqualTo(3);

        long reported = System.nanoTime();
        assertThat(client().getWith("api/reports", "X-Tenant", tenant).statusCode()).isEqualTo(200);
        JsonObject after = quota(tenant);
        // A token comes back every 12 s: the report is missing from the read unless that long went by.
        if (millisSince(reported) < 11_000) {
            assertThat(after.getInt("remaining")).as("the report is counted where the read looks").isEqualTo(2);
            assertThat(after.getInt("reset_seconds")).as("full again within one token's 12 s").isBetween(1, 12);
        }

        assertThat(quota("acme").getInt("limit")).as("acme is on pro").isEqualTo(50);
        JsonObject month = quotas(tenant).getJsonObject(1);
        assertThat(month.getString("bucket")).isEqualTo("reports-monthly");
        assertThat(month.getInt("remaining")).as("the report counted in the month too, the reads not").isEqualTo(999);
        HttpResponse<String> anonymous = client().get("api/usage");
        assertThat(anonymous.statusCode()).as(anonymous.body()).isEqualTo(400);
        assertThat(anonymous.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/problem+json");
    }

    @Test
    @DisplayName("/api/reports also counts a calendar month per tenant (reports-monthly): 1 000 a month of UTC on no "
            + "plan, pro's 100 000 in Paris's months, globex's 20 000 in New York's; no w, t and the usage read to "
            + "midnight on the 1st in the tenant's zone")
    void monthlyQuotaPerPlan() {
        String tenant = "initrode-" + UUID.randomUUID();
        HttpResponse<String> report = client().getWith("api/reports", "X-Tenant", tenant);
        assertThat(report.statusCode()).as(report.body()).isEqualTo(200);
        assertThat(report.headers().firstValue("RateLimit-Policy").orElseThrow())
                .as("a month has no one length: no w").endsWith(", \"reports-monthly\";q=1000");
        String rateLimit = report.headers().firstValue("RateLimit").orElseThrow();
        Matcher left = Pattern.compile("\"reports-monthly\";r=999;t=(\\d+)$")
                .matcher(rateLimit);
        assertThat(left.find()).as(rateLimit).isTrue();
        assertThat(Long.parseLong(left.group(1))).as("t: until the 1st at 00:00 UTC")
                .isCloseTo(secondsToNextMonth(ZoneOffset.UTC), Offset.offset(5L));

        JsonObject acme = quotas("acme").getJsonObject(1);
        assertThat(acme.getString("window")).isEqualTo("month");
        assertThat(acme.getInt("limit")).as("acme's pro plan").isEqualTo(100_000);
        assertThat(acme.getJsonNumber("reset_seconds").longValue()).as("acme's month ends in Paris")
                .isCloseTo(secondsToNextMonth(ZoneId.of("Europe/Paris")),
                        Offset.offset(5L));
        JsonObject globex = quotas("globex").getJsonObject(1);
        assertThat(globex.getInt("limit")).as("globex's contract").isEqualTo(20_000);
        assertThat(globex.getJsonNumber("reset_seconds").longValue()).as("globex's month ends in New York")
                .isCloseTo(secondsToNextMonth(ZoneId.of("America/New_York")),
                        Offset.offset(5L));
    }

    /** Seconds from now until midnight on the next 1st in {@code zone}, as the test's clock says. */
    private static long secondsToNextMonth(ZoneId zone) {
        ZonedDateTime now = ZonedDateTime.now(zone);
        ZonedDateTime first = now.toLocalDate().withDayOfMonth(1).plusMonths(1).atStartOfDay(zone);
        return Duration.between(now, first).toSeconds();
    }

    /** The tenant's first quota in {@code GET /api/usage} ({@code reports}), which must answer 200. */
    private JsonObject quota(String tenant) {
        return quotas(tenant).getJsonObject(0);
    }

    /** The tenant's quotas in {@code GET /api/usage}: {@code reports}, then {@code reports-monthly}. */
    private JsonArray quotas(String tenant) {
        HttpResponse<String> response = client().getWith("api/usage", "X-Tenant", tenant);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonObject body = ExampleApi.json(response);
        assertThat(body.getString("tenant")).isEqualTo(tenant);
        return body.getJsonArray("quotas");
    }

    /**
     * {@code tenant}'s reports, each from another address, until refused: a full bucket's {@code burst}, plus what
     * the plan's {@code perMinute} refilled meanwhile, then 429 with RateLimit-Policy naming the plan's rate.
     */
    private void assertBurstOfPlan(String tenant, int burst, int perMinute) {
        long started = System.nanoTime();
        HttpResponse<String> first = client().getWith("api/reports", "X-Tenant", tenant);
        assertThat(first.statusCode()).as("%s, request 1: %s", tenant, first.body()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy").orElseThrow()).as(tenant)
                .contains("\"reports\";q=" + perMinute + ";w=60");
        assertThat(first.headers().firstValue("RateLimit").orElseThrow()).as(tenant)
                .contains("\"reports\";r=" + (burst - 1) + ";");
        int allowed = 1;
        HttpResponse<String> response = client().getWith("api/reports", "X-Tenant", tenant);
        while (response.statusCode() == 200 && allowed < 3 * burst) {
            allowed++;
            response = client().getWith("api/reports", "X-Tenant", tenant);
        }
        long elapsed = millisSince(started);

        assertQuotaExceeded(response, "reports");
        assertThat(response.headers().firstValue("RateLimit-Policy").orElseThrow()).as(tenant)
                .contains("\"reports\";q=" + perMinute + ";w=60");
        assertThat(allowed).as("%s: allowed in %d ms", tenant, elapsed)
                .isBetween(burst, burst + (int) (elapsed * perMinute / 60_000));
    }

    @Test
    @DisplayName("plans chosen by the plan resolver the bucket's configuration names (tiered: free 2 per hour, pro 6): "
            + "the free tenant is refused after 2 while the pro tenant goes on to 6, RateLimit-Policy naming each "
            + "plan's limit")
    void plansChosenByConfiguredResolver() {
        String suffix = UUID.randomUUID().toString();
        ExampleApi client = client();
        assertRefusedAfter(client, "api/tiered/free-" + suffix, "tiered", 2);
        assertRefusedAfter(client, "api/tiered/pro-" + suffix, "tiered", 6);
        assertThat(client.get("api/tiered/free-" + suffix).statusCode()).as("free, still refused").isEqualTo(429);
    }

    @Test
    @DisplayName("explicit limits from the plan resolver (a customer's contract, RateLimitPlan.limit(4)): allowed "
            + "exactly 4 times, RateLimit-Policy q=4, then 429")
    void explicitLimitsOfACustomer() {
        assertRefusedAfter(client(), "api/tiered/contract-" + UUID.randomUUID(), "tiered", 4);
    }

    @Test
    @DisplayName("a plan resolver that throws, or names a plan the bucket does not declare: the bucket's own limits "
            + "(2), never a 500")
    void failedPlanGetsTheBucketsOwnLimits() {
        assertRefusedAfter(client(), "api/tiered/broken-" + UUID.randomUUID(), "tiered", 2);
        assertRefusedAfter(client(), "api/tiered/gold-" + UUID.randomUUID(), "tiered", 2);
    }

    @Test
    @DisplayName("/api/search is a sliding window of 10 per minute per caller: 10 searches with r counting down and t "
            + "until all have slid out (2 minutes), then 429 naming the bucket, its Retry-After the 66 s until the "
            + "previous minute's weight leaves room for one, past the window's end; the refusal counts nothing, and "
            + "another caller is not affected")
    void searchLimitedBySlidingWindow() {
        ExampleApi client = client();
        long started = System.nanoTime();
        for (int i = 1; i <= 10; i++) {
            HttpResponse<String> response = client.get("api/search?q=rate");
            long elapsed = millisSince(started);
            assertThat(response.statusCode()).as("search %d: %s", i, response.body()).isEqualTo(200);
            assertThat(response.body()).as("search %d", i).contains("Jakarta Rate Limiter")
                    .doesNotContain("Demo project");
            // The first search opened the window (60 s); each search counted in it weighs on the next window too,
            // so all have slid out at the window's end plus 60 s: 120 s after the first search.
            long[] item = rateLimitItem(response, "search");
            assertThat(item[0]).as("search %d: r", i).isEqualTo(10L - i);
            assertThat(item[1]).as("search %d: t, elapsed %d ms", i, elapsed)
                    .isBetween(ceilSeconds(120_000 - elapsed), 120L);
        }

        HttpResponse<String> refused = client.get("api/search?q=rate");
        long elapsed = millisSince(started);

        assertQuotaExceeded(refused, "search");
        assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow()).as("10 per minute")
                .contains("\"search\";q=10;w=60");
        // 10 counted in the current window, 0 before it: a search fits once the next window has begun and the 10
        // weigh at most 10 - 1, 10 x r / 60 s <= 9 with r the next window's time left, so at r = 54 s: 6 s into the
        // next window, 66 s after the first search.
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).as("Retry-After, elapsed %d ms", elapsed)
                .isBetween(ceilSeconds(66_000 - elapsed), 66L);
        assertThat(refused.headers().firstValue("RateLimit").orElseThrow())
                .contains("\"search\";r=0;t=" + retryAfter);

        HttpResponse<String> again = client.get("api/search?q=rate");
        elapsed = millisSince(started);
        assertQuotaExceeded(again, "search");
        // Had the refusal counted, 11 in the window would weigh 11 x r / 60 s <= 9 only at r = 49 s: 71 s.
        assertThat(Long.parseLong(again.headers().firstValue("Retry-After").orElseThrow()))
                .as("the refusal counted nothing; elapsed %d ms", elapsed)
                .isBetween(ceilSeconds(66_000 - elapsed), retryAfter);

        HttpResponse<String> other = client().get("api/search?q=rate");
        assertThat(other.statusCode()).as("another caller: %s", other.body()).isEqualTo(200);
        assertThat(other.headers().firstValue("RateLimit").orElseThrow()).as("another caller")
                .contains("\"search\";r=9;");
    }

    /** {@code r} and {@code t} of {@code bucket}'s item in the response's RateLimit header. */
    private static long[] rateLimitItem(HttpResponse<String> response, String bucket) {
        String header = response.headers().firstValue("RateLimit").orElseThrow();
        Matcher item = Pattern
                .compile("\"" + bucket + "\";r=(\\d+);t=(\\d+)(,|$)").matcher(header);
        assertThat(item.find()).as("an item \"%s\" in RateLimit: %s", bucket, header).isTrue();
        return new long[] {Long.parseLong(item.group(1)), Long.parseLong(item.group(2))};
    }

    /**
     * Milliseconds since {@code nanoTime}, rounded up: at least the server's time between a decision made after
     * {@code nanoTime} and one made before now.
     */
    private static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime + 999_999) / 1_000_000;
    }

    /** Whole seconds, rounded up as Retry-After and RateLimit's t are. */
    private static long ceilSeconds(long millis) {
        return Math.floorDiv(millis + 999, 1000);
    }

    @Test
    @DisplayName("a key resolver returning null (no X-Tenant) without a fallback: 400 problem naming the bucket, counted in no tenant bucket")
    void reportsWithoutTenant() {
        ExampleApi client = client();
        for (int i = 1; i <= 6; i++) {
            HttpResponse<String> response = client.getWith("api/reports", "X-Tenant", i % 2 == 0 ? " " : "");
            assertThat(response.statusCode()).as("request %d: %s", i, response.body()).isEqualTo(400);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(ExampleApi.json(response).getString("bucket")).isEqualTo("reports");
            assertThat(response.headers().firstValue("Retry-After")).isEmpty();
            assertThat(response.headers().firstValue("RateLimit").orElseThrow()).doesNotContain("reports");
        }
        assertThat(client.get("api/reports").statusCode()).as("no header at all").isEqualTo(400);
    }

    @Test
    @DisplayName("a key resolver with fallback = CLIENT_ADDRESS: without X-Tenant keyed by the address (3, then 429), with it by the tenant")
    void resolverFallsBackToAddress() {
        ExampleApi client = client();
        assertRefusedAfterThree(client, "api/tenant-or-address");

        HttpResponse<String> asTenant = client.getWith("api/tenant-or-address", "X-Tenant", "t-" + UUID.randomUUID());

        assertThat(asTenant.statusCode()).as(asTenant.body()).isEqualTo(200);
        assertThat(asTenant.headers().firstValue("RateLimit").orElseThrow()).contains("\"imports\";r=2;");
    }

    @Test
    @DisplayName("imports that fail and roll back their transaction still count: the 4th attempt for a workspace is 429")
    void rolledBackAttemptsCount() {
        ExampleApi client = client();
        long fallbacksBefore = fallbacks();
        String workspace = "ws-" + UUID.randomUUID();
        String invalid = "[{\"id\": \"demo\", \"name\": \"Demo\"}, {\"id\": \"Not Valid!\", \"name\": \"x\"}]";
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> rejected = client.postJson("api/workspaces/" + workspace + "/imports", invalid);
            assertThat(rejected.statusCode()).as("attempt %d, rolled back", i).isEqualTo(422);
        }

        HttpResponse<String> refused = client.postJson("api/workspaces/" + workspace + "/imports",
                "[{\"id\": \"demo\", \"name\": \"Demo\"}]");

        assertThat(refused.statusCode()).as("a valid import after three rolled-back ones").isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("imports");
        assertThat(client.postJson("api/workspaces/other-" + workspace + "/imports",
                "[{\"id\": \"demo\", \"name\": \"Demo\"}]").statusCode()).as("another workspace")
                .isEqualTo(200);
        // The store counted them, not the fallback: the library refuses a connection that joined the transaction
        // (a transactional pool), and the bucket's fallback would have counted instead.
        assertThat(fallbacks()).as("fallbacks during the scenario").isEqualTo(fallbacksBefore);
    }

    /** The readiness check's {@code fallbacks}: a number, or on Payara its decimal string. */
    private long fallbacks() {
        JsonValue value = readinessCheck().getJsonObject("data").get("fallbacks");
        return value instanceof JsonString text ? Long.parseLong(text.getString())
                : ((JsonNumber) value).longValueExact();
    }

    @Test
    @DisplayName("logins that differ only in case and white space share one counter")
    void loginNormalized() {
        ExampleApi client = client();
        String account = "Eve-" + UUID.randomUUID();
        for (String variant : new String[] {account, account.toUpperCase(), " " + account, account.toLowerCase(),
                account + "\t"}) {
            assertThat(client.login(variant, "wrong").statusCode()).isEqualTo(401);
        }
        assertThat(client.login(account.toLowerCase(), "wrong").statusCode()).isEqualTo(429);
    }

    @Test
    @DisplayName("login-address counts failed logins only (docs/guide.md#counting-failures-only): 60 successful logins "
            + "from one address spend none of its 50, failed ones do, and the 51st failure's address is refused, a "
            + "right password too")
    void loginAddressCountsFailuresOnly() {
        ExampleApi client = client();
        for (int i = 1; i <= 60; i++) {
            HttpResponse<String> success = client.login("bob", "builder");
            assertThat(success.statusCode()).as("login %d", i).isEqualTo(200);
            assertThat(success.headers().firstValue("RateLimit").orElseThrow()).as("login %d", i)
                    .contains("\"login-address\";r=50;");
        }
        for (int i = 1; i <= 50; i++) {
            HttpResponse<String> failed = client.login("nobody-" + i + "-" + UUID.randomUUID(), "guess");
            assertThat(failed.statusCode()).as("failure %d", i).isEqualTo(401);
            assertThat(failed.headers().firstValue("RateLimit").orElseThrow()).as("failure %d", i)
                    .contains("\"login-address\";r=" + (50 - i) + ";");
        }

        HttpResponse<String> refused = client.login("bob", "builder");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("login-address");
        assertThat(client().login("bob", "builder").statusCode()).as("another address").isEqualTo(200);
    }

    @Test
    @DisplayName("a successful login resets its account's counter")
    void successfulLoginResets() {
        ExampleApi client = client();
        for (int i = 1; i <= 4; i++) {
            assertThat(client.login("alice", "wrong-" + i).statusCode()).isEqualTo(401);
        }
        HttpResponse<String> success = client.login("alice", "wonderland");
        assertThat(success.statusCode()).isEqualTo(200);
        assertThat(ExampleApi.json(success).getString("token")).isNotBlank();

        for (int i = 1; i <= 5; i++) {
            assertThat(client.login("alice", "again-" + i).statusCode()).as("attempt %d after reset", i)
                    .isEqualTo(401);
        }
        assertThat(client.login("alice", "again-6").statusCode()).isEqualTo(429);
        assertThat(client.login("alice", "wonderland").statusCode()).as("still limited").isEqualTo(429);
    }

    @Test
    @DisplayName("/api/me with a bearer token is keyed by principal across client addresses, with the application's own limit (300) over the library's default (600)")
    void authenticatedKeyedByPrincipal() {
        HttpResponse<String> login = client().login("bob", "builder");
        assertThat(login.statusCode()).isEqualTo(200);
        String token = ExampleApi.json(login).getString("token");

        HttpResponse<String> first = client().get("api/me", token);
        HttpResponse<String> second = client().get("api/me", token);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(ExampleApi.json(first).getString("user")).isEqualTo("bob");
        assertThat(first.headers().firstValue("RateLimit-Policy")).contains("\"api-authenticated\";q=300;w=60");
        long firstRemaining = remaining(first);
        assertThat(remaining(second)).as("same principal from another address").isEqualTo(firstRemaining - 1);
        assertThat(client().get("api/me").statusCode()).as("without a token").isEqualTo(401);
    }

    @Test
    @DisplayName("readiness shows the rate-limiter check UP with backend and state")
    void readiness() {
        JsonObject check = readinessCheck();
        assertThat(check.getString("status")).isEqualTo("UP");
        assertThat(check.getJsonObject("data").getString("backend")).isEqualTo(backend());
        assertThat(check.getJsonObject("data").getString("state")).isEqualTo("ok");
    }

    /** The {@code rate-limiter} check of the readiness response, which must be 200 and UP. */
    private JsonObject readinessCheck() {
        HttpResponse<String> response = client().get(readinessPath());
        assertThat(response.statusCode()).isEqualTo(200);
        JsonObject health = ExampleApi.json(response);
        assertThat(health.getString("status")).isEqualTo("UP");
        return health.getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(c -> c.getString("name").equals("rate-limiter")).findFirst().orElseThrow();
    }

    @Test
    @DisplayName("a malformed login body is a 400 problem, counted, never a 500")
    void malformedBody() {
        ExampleApi client = client();
        for (String body : new String[] {"{\"login\":", "[1,2]", "\"x\"", "{\"login\":{\"a\":1}}"}) {
            HttpResponse<String> response = client.postJson("api/login", body);
            assertThat(response.statusCode()).as(body).isEqualTo(400);
            assertThat(response.body()).doesNotContain("Exception");
        }
        HttpResponse<String> next = client.get("api/projects");
        assertThat(next.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"api-anonymous\";r=115;");
    }

    /**
     * Whether an OPTIONS request reaches the application's post-matching filters on this server. Jersey (Payara)
     * matches OPTIONS to a generated resource method, so the global filter counts it; RESTEasy (Open Liberty)
     * answers it before any post-matching filter runs, without touching the application.
     */
    protected boolean optionsReachFilters() {
        return true;
    }

    @Test
    @DisplayName("a CORS preflight is not counted; an OPTIONS request without Origin counts where it reaches the filters")
    void preflightNotCounted() {
        ExampleApi client = client();
        client.options("api/projects", "Origin", "https://app.example", "Access-Control-Request-Method", "GET");
        assertThat(client.get("api/projects").headers().firstValue("RateLimit").orElseThrow())
                .startsWith("\"api-anonymous\";r=119;");
        client.options("api/projects", "Access-Control-Request-Method", "GET");
        assertThat(client.get("api/projects").headers().firstValue("RateLimit").orElseThrow())
                .startsWith("\"api-anonymous\";r=" + (optionsReachFilters() ? 117 : 118) + ";");
    }

    @Test
    @DisplayName("the metrics path shows the limiter's series per bucket, at zero before any outage")
    void metrics() {
        client().get("api/projects");
        String body = scrape();
        assertThat(series(body, "rate_limiter_fallbacks_total", "bucket=\"login\"")).isEqualTo(0.0);
        assertThat(series(body, "rate_limiter_fail_open_total", "bucket=\"login\"")).isEqualTo(0.0);
        assertThat(series(body, "rate_limiter_degraded", "backend=\"" + backend() + "\"")).isEqualTo(0.0);
        assertThat(series(body, "rate_limiter_backend_errors_total", "backend=\"" + backend() + "\""))
                .isEqualTo(0.0);
        // plan="none": a server registers the plan "explicit" of every bucket too, and may list it first
        assertThat(series(body, "rate_limiter_decisions_total", "bucket=\"api-anonymous\"", "outcome=\"allowed\"",
                "plan=\"none\"")).isPositive();
    }

    @Test
    @DisplayName("a resource limited at class level whose method calls another of its own (which ArC intercepts and "
            + "Weld does not): each request counts one attempt of selfcall (3 a minute), the fourth is refused")
    void selfCallCountsOnce() {
        ExampleApi client = client();
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> response = client.get("api/selfcall");
            assertThat(response.statusCode()).as("request %d: %s", i, response.body()).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit").orElseThrow()).as("request %d", i)
                    .contains("\"selfcall\";r=" + (3 - i) + ";t=");
        }
        assertThat(client.get("api/selfcall").statusCode()).as("the fourth request").isEqualTo(429);
    }

    @Test
    @DisplayName("a bucket in shadow mode (trial, 2 per hour) never refuses: past the limit 200 with RateLimit r=0 and no Retry-After; readiness lists it")
    void shadowBucketNeverRefuses() {
        ExampleApi client = client();
        for (int i = 1; i <= 4; i++) {
            HttpResponse<String> response = client.get("api/trial");
            assertThat(response.statusCode()).as("request %d: %s", i, response.body()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("trial");
            assertThat(response.headers().firstValue("RateLimit-Policy").orElseThrow()).as("request %d", i)
                    .contains("\"trial\";q=2;w=3600");
            assertThat(response.headers().firstValue("RateLimit").orElseThrow()).as("request %d", i)
                    .contains("\"trial\";r=" + Math.max(0, 2 - i) + ";t=");
            assertThat(response.headers().firstValue("Retry-After")).as("request %d", i).isEmpty();
        }
        assertThat(readinessCheck().getJsonObject("data").getString("shadowBuckets")).isEqualTo("trial");
    }

    @Test
    @DisplayName("the metrics path counts a shadow bucket's would-be refusals under outcome shadow_denied, never denied")
    void shadowMetrics() {
        double before = decisions("trial", "shadow_denied");
        ExampleApi client = client();
        for (int i = 1; i <= 5; i++) {
            assertThat(client.get("api/trial").statusCode()).as("request %d", i).isEqualTo(200);
        }
        assertThat(decisions("trial", "shadow_denied")).as("3 past the limit of 2").isEqualTo(before + 3);
        assertThat(decisions("trial", "denied")).isEqualTo(0.0);
    }

    @Test
    @DisplayName("api-anonymous's lists (docs/guide.md#allow-and-deny-lists): an address in the denied 203.0.113.0/24 "
            + "gets 429 of type key-denied with Retry-After 60 at once; 203.0.113.7, allowed, is counted past the limit "
            + "of 120 and never refused")
    void allowAndDenyLists() {
        HttpResponse<String> refused = ExampleApi.withAddress(baseUri(), "203.0.113.66").get("api/projects");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).as("the bucket's window").contains("60");
        assertThat(refused.headers().firstValue("RateLimit")).contains("\"api-anonymous\";r=0;t=60");
        JsonObject problem = ExampleApi.json(refused);
        assertThat(problem.getString("type")).isEqualTo("tag:ratelimiter.dev,2026:key-denied");
        assertThat(problem.getString("title")).isEqualTo("Key Denied");
        assertThat(problem.getString("bucket")).isEqualTo("api-anonymous");
        assertThat(problem.getJsonArray("violated-policies")).as("no policy was exceeded").isEmpty();

        HttpResponse<String> last = partnerPastTheLimit();
        assertThat(last.headers().firstValue("RateLimit").orElseThrow())
                .as("counted: the 121st leaves nothing").startsWith("\"api-anonymous\";r=0;");
        assertThat(last.headers().firstValue("Retry-After")).isEmpty();
    }

    @Test
    @DisplayName("the metrics path counts a deny list's refusal under outcome deny_listed and an allow list's call past "
            + "the limit under allow_listed, never as denied")
    void listsInTheMetrics() {
        double deniedBefore = decisions("api-anonymous", "deny_listed");
        double allowedBefore = decisions("api-anonymous", "allow_listed");
        assertThat(ExampleApi.withAddress(baseUri(), "203.0.113.67").get("api/projects").statusCode())
                .isEqualTo(429);
        partnerPastTheLimit();
        assertThat(decisions("api-anonymous", "deny_listed")).isEqualTo(deniedBefore + 1);
        assertThat(decisions("api-anonymous", "allow_listed")).as("at least the 121st; more if the partner was "
                + "counted earlier in this window").isGreaterThanOrEqualTo(allowedBefore + 1);
    }

    /** 121 requests of the partner 203.0.113.7 (allowed past api-anonymous's 120), each 200; the last response. */
    private HttpResponse<String> partnerPastTheLimit() {
        ExampleApi partner = ExampleApi.withAddress(baseUri(), "203.0.113.7");
        HttpResponse<String> response = null;
        for (int i = 1; i <= 121; i++) {
            response = partner.get("api/projects");
            assertThat(response.statusCode()).as("request %d: %s", i, response.body()).isEqualTo(200);
        }
        return response;
    }

    @Test
    @DisplayName("the metrics path counts tiered's decisions by plan (pro, explicit, none; never the key) and the calls "
            + "that got the bucket's own limits as plan misses by reason (error, undeclared)")
    void planMetrics() {
        String suffix = UUID.randomUUID().toString();
        String before = scrape();
        ExampleApi client = client();
        for (String tenant : new String[] {"pro-", "contract-", "broken-", "gold-", "free-"}) {
            HttpResponse<String> response = client.get("api/tiered/" + tenant + suffix);
            assertThat(response.statusCode()).as("%s: %s", tenant, response.body()).isEqualTo(200);
        }
        String after = scrape();

        for (String plan : new String[] {"pro", "explicit"}) {
            String[] labels = {"bucket=\"tiered\"", "outcome=\"allowed\"", "plan=\"" + plan + "\""};
            assertThat(seriesOrZero(after, "rate_limiter_decisions_total", labels)).as(plan)
                    .isEqualTo(seriesOrZero(before, "rate_limiter_decisions_total", labels) + 1);
        }
        String[] none = {"bucket=\"tiered\"", "outcome=\"allowed\"", "plan=\"none\""};
        assertThat(seriesOrZero(after, "rate_limiter_decisions_total", none)).as("none: broken, gold, free")
                .isEqualTo(seriesOrZero(before, "rate_limiter_decisions_total", none) + 3);
        for (String reason : new String[] {"error", "undeclared", "none"}) {
            String[] labels = {"bucket=\"tiered\"", "reason=\"" + reason + "\""};
            assertThat(seriesOrZero(after, "rate_limiter_plan_misses_total", labels)).as(reason)
                    .isEqualTo(seriesOrZero(before, "rate_limiter_plan_misses_total", labels) + 1);
        }
        assertThat(after).as("no series names a tenant").doesNotContain(suffix);
    }

    /** As {@link #series}, or 0 where the series is not (yet) exposed. */
    private static double seriesOrZero(String body, String name, String... labels) {
        return body.lines()
                .filter(line -> line.startsWith(name + "{"))
                .filter(line -> java.util.Arrays.stream(labels).allMatch(line::contains))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst().orElse(0.0);
    }

    /** {@code rate_limiter_decisions_total} of one bucket and outcome, on no plan, read from the metrics path. */
    private double decisions(String bucket, String outcome) {
        return series(scrape(), "rate_limiter_decisions_total", "bucket=\"" + bucket + "\"",
                "outcome=\"" + outcome + "\"", "plan=\"none\"");
    }

    @Test
    @DisplayName("every series the Grafana dashboard (ops/grafana) and the alert rules (ops/prometheus) query is exposed on the metrics path")
    void opsQueriesUseExposedSeries() {
        client().get("api/projects");
        java.util.Set<String> exposed = ScrapedSeries.names(scrape());

        assertThat(MetricNameCheck.missing(OpsQueries.shipped(), exposed))
                .as("series queried by ops/ but not exposed here; exposed: %s", exposed).isEmpty();
    }

    /**
     * Asserts that the bucket {@code activeOnly}, configured only under the active configuration profile, exists
     * (its series are registered at startup, at zero) and that {@code inactiveOnly}, configured only under another
     * profile, does not.
     */
    protected void assertBucketsUnderProfiles(String activeOnly, String inactiveOnly) {
        String body = scrape();
        assertThat(series(body, "rate_limiter_decisions_total", "bucket=\"" + activeOnly + "\"",
                "outcome=\"allowed\"", "plan=\"none\"")).isZero();
        assertThat(series(body, "rate_limiter_fallbacks_total", "bucket=\"" + activeOnly + "\"")).isZero();
        assertThat(body).contains("bucket=\"api-anonymous\"").doesNotContain("bucket=\"" + inactiveOnly + "\"");
    }

    /**
     * The value of the one sample of {@code name} whose labels include {@code labels}, in the Prometheus text
     * format (servers differ in label order, extra labels such as {@code mp_scope}, and a trailing comma).
     */
    private static double series(String body, String name, String... labels) {
        return body.lines()
                .filter(line -> line.startsWith(name + "{"))
                .filter(line -> java.util.Arrays.stream(labels).allMatch(line::contains))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no sample " + name + java.util.Arrays.toString(labels)
                        + " in:\n" + body));
    }

    private static long remaining(HttpResponse<String> response) {
        String header = response.headers().firstValue("RateLimit").orElseThrow();
        return Long.parseLong(header.replaceAll(".*\"api-authenticated\";r=(\\d+).*", "$1"));
    }
}
