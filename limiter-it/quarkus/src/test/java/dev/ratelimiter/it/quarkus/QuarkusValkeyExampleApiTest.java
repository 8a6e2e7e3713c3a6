package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.internal.valkey.RedisServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example API's scenarios on Quarkus with the Valkey backend (a redis-server of this test's own), and the
 * non-blocking endpoints: the global limit holds on them, and no store call runs on the Vert.x event loop.
 *
 * <p>How "no store call on the event loop" is seen: Vert.x's blocked-thread checker is set to warn after half a
 * second, and the store is made slow on purpose ({@code CLIENT PAUSE} of two seconds, under the client's timeout)
 * while a non-blocking endpoint is called. A store call on the event loop would block it for those two seconds and
 * the checker would warn; one on a worker thread does not. A deliberately stalling endpoint proves the test sees
 * such a warning.
 */
@QuarkusTest
@TestProfile(QuarkusValkeyExampleApiTest.Valkey.class)
class QuarkusValkeyExampleApiTest extends QuarkusExampleApiTest {

    private static final Duration STORE_STALL = Duration.ofSeconds(2);
    private static final String BLOCKED_THREAD_CHECKER = "io.vertx.core.impl.BlockedThreadChecker";

    /** Backend valkey on a redis-server started for this profile; event-loop blocking reported after 0.5 s. */
    public static class Valkey implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    // Longer than the store stall, so the slow call is answered, not timed out into a fallback.
                    "ratelimiter.valkey.timeout", "PT5S",
                    "quarkus.vertx.max-event-loop-execute-time", "PT0.5S",
                    // Also the checker's interval in Quarkus.
                    "quarkus.vertx.warning-exception-time", "PT0.1S");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(OwnRedis.class));
        }
    }

    /** Starts the profile's redis-server and hands it to the test. */
    public static class OwnRedis implements QuarkusTestResourceLifecycleManager {
        private RedisServer server;

        @Override
        public Map<String, String> start() {
            server = RedisServer.start();
            return Map.of("ratelimiter.backend", "valkey", "ratelimiter.valkey.url", server.url());
        }

        @Override
        public void inject(TestInjector injector) {
            injector.injectIntoFields(server, new TestInjector.MatchesType(RedisServer.class));
        }

        @Override
        public void stop() {
            if (server != null) {
                server.close();
            }
        }
    }

    RedisServer redis;

    @Override
    protected Map<String, String> scenariosNotRun() {
        return runOnly(ON_A_SHARED_STORE, Map.of());
    }

    @Override
    protected String backend() {
        return "valkey";
    }

    @Test
    @DisplayName("a non-blocking endpoint: 120 anonymous requests are allowed, the 121st is 429 with the problem")
    void nonBlockingEndpointLimited() {
        ExampleApi client = client();
        for (int i = 1; i <= 120; i++) {
            assertThat(client.get("api/reactive/greeting").statusCode()).as("request %d", i).isEqualTo(200);
        }

        HttpResponse<String> refused = client.get("api/reactive/greeting");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("api-anonymous");
        assertThat(client().get("api/reactive/greeting").body()).as("another client").isEqualTo("hello");
    }

    @Test
    @DisplayName("a slow store does not block the event loop of a non-blocking endpoint (and a blocking endpoint does)")
    void storeCallsLeaveTheEventLoop() throws Exception {
        try (LogCapture warnings = LogCapture.of(BLOCKED_THREAD_CHECKER)) {
            assertThat(client().get("api/reactive/stall").statusCode()).isEqualTo(200);
            assertThat(warnings.seen()).as("the checker sees a blocked event loop").isNotEmpty();
        }

        try (LogCapture warnings = LogCapture.of(BLOCKED_THREAD_CHECKER)) {
            HttpResponse<String> response = twoAtOnceWhileTheStoreStalls("api/reactive/greeting");
            assertThat(response.body()).isEqualTo("hello");
            assertThat(warnings.seen()).as("blocked-thread warnings").isEmpty();
        }
    }

    /**
     * Two GETs of {@code path} at once from one client while the store is paused: both 200, and the store was
     * waited for. Both would share one event loop's thread if the store were asked there.
     */
    private HttpResponse<String> twoAtOnceWhileTheStoreStalls(String path) throws Exception {
        try (Jedis admin = new Jedis(URI.create(redis.url()))) {
            ExampleApi client = client();
            admin.clientPause(STORE_STALL.toMillis());
            long started = System.nanoTime();
            CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> client.get(path));
            HttpResponse<String> second = client.get(path);
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(second.statusCode()).isEqualTo(200);
            assertThat(first.get().statusCode()).isEqualTo(200);
            assertThat(took).as("the store was asked, and waited for").isGreaterThan(STORE_STALL.dividedBy(2));
            return second;
        }
    }

    @Test
    @DisplayName("a Uni method over its token bucket's rate (2 a second, max-wait 3 s) waits without a thread: 5 calls "
            + "at once all answer 200, reserved in Valkey in turn, none run on the event loop, and nothing blocks it")
    void uniWaitsWithoutBlockingTheEventLoop() throws Exception {
        try (LogCapture blocked = LogCapture.of(BLOCKED_THREAD_CHECKER)) {
            ExampleApi client = client();
            String account = "acct-" + UUID.randomUUID();
            List<CompletableFuture<HttpResponse<String>>> calls = IntStream.range(0, 5)
                    .mapToObj(i -> CompletableFuture.supplyAsync(
                            () -> client.get("api/reactive/partner?account=" + account)))
                    .toList();
            for (CompletableFuture<HttpResponse<String>> call : calls) {
                HttpResponse<String> response = call.get(10, TimeUnit.SECONDS);
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                assertThat(response.body()).startsWith("quoted for " + account).doesNotContain("eventloop");
            }
            assertThat(blocked.seen()).as("blocked-thread warnings").isEmpty();
        }
    }

    @Test
    @DisplayName("a @RateLimited Uni method is decided at subscription on a worker: a slow store blocks no event loop, "
            + "and nothing warns")
    void rateLimitedUniLeavesTheEventLoop() throws Exception {
        try (LogCapture blocked = LogCapture.of(BLOCKED_THREAD_CHECKER);
             LogCapture warnings = LogCapture.of("dev.ratelimiter.internal.cdi.interceptor.EventLoopWarner")) {
            HttpResponse<String> response = twoAtOnceWhileTheStoreStalls("api/reactive/quota");
            assertThat(response.headers().firstValue("RateLimit").orElseThrow()).contains("\"reactive\";r=");
            assertThat(blocked.seen()).as("blocked-thread warnings").isEmpty();
            assertThat(warnings.seen()).as("event-loop warnings of the library").isEmpty();
        }
    }

    /** What one logger logged while open. */
    private static final class LogCapture extends Handler implements AutoCloseable {
        // Held strongly: java.util.logging keeps loggers weakly.
        private final Logger logger;
        private final List<String> seen = Collections.synchronizedList(new ArrayList<>());

        private LogCapture(String name) {
            logger = Logger.getLogger(name);
        }

        static LogCapture of(String name) {
            LogCapture capture = new LogCapture(name);
            capture.logger.addHandler(capture);
            return capture;
        }

        List<String> seen() {
            return List.copyOf(seen);
        }

        @Override
        public void publish(LogRecord record) {
            seen.add(String.valueOf(record.getMessage()));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }
}
