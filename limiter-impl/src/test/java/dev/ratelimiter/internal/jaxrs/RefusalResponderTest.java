package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitRefusalHandler;
import dev.ratelimiter.RateLimiterUnavailableException;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.testing.LogCapture;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.core.Response;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.time.Duration;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The refusal responses in a CDI container (Weld SE), with and without an application's
 * {@link RateLimitRefusalHandler}: the library's problem bodies (draft-ietf-httpapi-ratelimit-headers-10 §5) and
 * what is kept of them when the application replaces them.
 */
class RefusalResponderTest {

    private static final Bucket LOGIN = Bucket.of("login", 5, Duration.ofMinutes(15), OutagePolicy.FAIL_CLOSED);
    private static final RateLimitException DENIED =
            new RateLimitExceededException(LOGIN, Verdict.denied(5, Duration.ofMillis(51_200)));
    private static final RateLimitException UNAVAILABLE =
            new RateLimiterUnavailableException(LOGIN, Verdict.unavailable(5, Duration.ofSeconds(4)));

    /** Replaces every refusal with a plain-text 418 that sets its own Retry-After. */
    @ApplicationScoped
    static class Teapot implements RateLimitRefusalHandler {
        @Override
        public Response toResponse(RateLimitException refusal) {
            return Response.status(418).header("Retry-After", "99").type("text/plain")
                    .entity("no coffee for " + refusal.bucket().name()).build();
        }
    }

    /** A second handler beside {@link Teapot}. */
    @ApplicationScoped
    static class AnotherTeapot extends Teapot {
    }

    /** Replaces only denials, leaving fail-closed outages to the library, and sets no header. */
    @ApplicationScoped
    static class DenialsOnly implements RateLimitRefusalHandler {
        @Override
        public Response toResponse(RateLimitException refusal) {
            return refusal instanceof RateLimitExceededException
                    ? Response.status(429).entity("slow down").build() : null;
        }
    }

    @ApplicationScoped
    static class Failing implements RateLimitRefusalHandler {
        @Override
        public Response toResponse(RateLimitException refusal) {
            throw new IllegalStateException("handler bug");
        }
    }

    private WeldContainer cdi;

    private RefusalResponder start(Class<?>... handlers) {
        cdi = new Weld("refusals-" + System.nanoTime()).disableDiscovery()
                .addBeanClasses(RefusalResponder.class).addBeanClasses(handlers).initialize();
        return cdi.select(RefusalResponder.class).get();
    }

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    private static JsonObject body(Response response) {
        return Json.createReader(new StringReader((String) response.getEntity())).readObject();
    }

    @Test
    @DisplayName("a denial without a handler: 429 problem+json of type quota-exceeded, violated-policies, bucket, retryAfter, not to be stored")
    void quotaExceeded() {
        Response response = start().respond(DENIED);

        assertThat(response.getStatus()).isEqualTo(429);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo("52");
        assertThat(response.getHeaderString("Cache-Control")).isEqualTo("no-store");
        assertThat(response.getMediaType().toString()).isEqualTo("application/problem+json");
        assertThat(body(response)).isEqualTo(Json.createObjectBuilder()
                .add("type", "https://iana.org/assignments/http-problem-types#quota-exceeded")
                .add("title", "Quota Exceeded")
                .add("status", 429)
                .add("detail", "Rate limit of bucket 'login' exceeded: 5 per 900 s. Retry after 52 s.")
                .add("violated-policies", Json.createArrayBuilder().add("login"))
                .add("bucket", "login")
                .add("retryAfter", 52)
                .build());
    }

    @Test
    @DisplayName("a key on the deny list: 429 problem+json of type key-denied, with the bucket's longest window as Retry-After")
    void keyDenied() {
        Response response = start().respond(new RateLimitExceededException(LOGIN,
                Verdict.denyListed(Duration.ofMinutes(15))));

        assertThat(response.getStatus()).isEqualTo(429);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo("900");
        assertThat(response.getMediaType().toString()).isEqualTo("application/problem+json");
        assertThat(body(response)).isEqualTo(Json.createObjectBuilder()
                .add("type", "tag:ratelimiter.dev,2026:key-denied")
                .add("title", "Key Denied")
                .add("status", 429)
                .add("detail", "Bucket 'login' refuses this caller: its key or address is on the bucket's deny "
                        + "list. Retry after 900 s.")
                .add("violated-policies", Json.createArrayBuilder())
                .add("bucket", "login")
                .add("retryAfter", 900)
                .build());
    }

    @Test
    @DisplayName("a fail-closed outage without a handler: 503 problem+json of type temporary-reduced-capacity")
    void temporaryReducedCapacity() {
        Response response = start().respond(UNAVAILABLE);

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo("4");
        JsonObject body = body(response);
        assertThat(body.getString("type"))
                .isEqualTo("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");
        assertThat(body.getString("title")).isEqualTo("Temporary Reduced Capacity");
        assertThat(body.getInt("status")).isEqualTo(503);
        assertThat(body.getJsonArray("violated-policies").getString(0)).isEqualTo("login");
        assertThat(body.getString("bucket")).isEqualTo("login");
        assertThat(body.getInt("retryAfter")).isEqualTo(4);
    }

    @Test
    @DisplayName("a refusal the application builds from a verdict is answered exactly as the interceptor's")
    void applicationRefusalAsTheInterceptors() {
        RefusalResponder refusals = start();
        Verdict verdict = Verdict.denied(5, Duration.ofSeconds(30));

        Response thrown = refusals.respond(RateLimitException.of(LOGIN, verdict));
        Response intercepted = refusals.respond(new RateLimitExceededException(LOGIN, verdict));

        assertThat(thrown.getStatus()).isEqualTo(intercepted.getStatus()).isEqualTo(429);
        assertThat(thrown.getEntity()).isEqualTo(intercepted.getEntity());
        assertThat(thrown.getStringHeaders()).isEqualTo(intercepted.getStringHeaders());
    }

    @Test
    @DisplayName("a handler's response replaces the library's; headers it set stay, Cache-Control is added")
    void replaced() {
        Response response = start(Teapot.class).respond(DENIED);

        assertThat(response.getStatus()).isEqualTo(418);
        assertThat(response.getEntity()).isEqualTo("no coffee for login");
        assertThat(response.getHeaderString("Retry-After")).isEqualTo("99");
        assertThat(response.getHeaderString("Cache-Control")).isEqualTo("no-store");
    }

    @Test
    @DisplayName("a handler that sets no header gets Retry-After and Cache-Control; one that returns null gets the library's response")
    void partlyReplaced() {
        RefusalResponder refusals = start(DenialsOnly.class);

        Response denied = refusals.respond(DENIED);
        Response unavailable = refusals.respond(UNAVAILABLE);

        assertThat(denied.getStatus()).isEqualTo(429);
        assertThat(denied.getEntity()).isEqualTo("slow down");
        assertThat(denied.getHeaderString("Retry-After")).isEqualTo("52");
        assertThat(denied.getHeaderString("Cache-Control")).isEqualTo("no-store");
        assertThat(unavailable.getStatus()).isEqualTo(503);
        assertThat(body(unavailable).getString("title")).isEqualTo("Temporary Reduced Capacity");
    }

    @Test
    @DisplayName("a handler that throws gives way to the library's response, logged once however often it fails")
    void failingHandler() {
        RefusalResponder refusals = start(Failing.class);
        try (LogCapture log = LogCapture.of(RefusalResponder.class)) {
            Response first = refusals.respond(DENIED);
            Response second = refusals.respond(UNAVAILABLE);

            assertThat(first.getStatus()).isEqualTo(429);
            assertThat(body(first).getString("type")).endsWith("#quota-exceeded");
            assertThat(second.getStatus()).isEqualTo(503);
            assertThat(log.records(Level.SEVERE)).singleElement().satisfies(record -> {
                assertThat(record.getMessage()).contains(RateLimitRefusalHandler.class.getName(), "'login'");
                assertThat(record.getThrown()).hasMessage("handler bug");
            });
        }
    }

    @Test
    @DisplayName("two handlers: the library's response, and the ambiguity logged")
    void ambiguousHandlers() {
        RefusalResponder refusals = start(Teapot.class, AnotherTeapot.class);
        try (LogCapture log = LogCapture.of(RefusalResponder.class)) {
            Response response = refusals.respond(DENIED);

            assertThat(response.getStatus()).isEqualTo(429);
            assertThat(body(response).getString("bucket")).isEqualTo("login");
            assertThat(log.records(Level.SEVERE)).singleElement()
                    .satisfies(record -> assertThat(record.getThrown()).hasMessageContaining("Teapot"));
        }
    }
}
