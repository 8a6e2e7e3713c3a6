package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimits;
import dev.ratelimiter.contract.MapStoreProvider;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decisions on the request's OpenTelemetry span (docs/operations.md#decisions-on-the-trace), through the CDI layer
 * (Weld SE) with an SDK tracer whose spans are kept in memory: the attributes a decision sets, the event of a
 * refusal, and never a key.
 */
class DecisionTracingCdiTest {

    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("ratelimit.outcome");
    private static final AttributeKey<String> BUCKET = AttributeKey.stringKey("ratelimit.bucket");
    private static final AttributeKey<Long> REMAINING = AttributeKey.longKey("ratelimit.remaining");

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private SdkTracerProvider provider;
    private Tracer tracer;
    private CdiContainer cdi;

    @BeforeEach
    void start() {
        provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
        tracer = provider.get("test");
        cdi = CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.buckets.login.limit", "2",
                "ratelimiter.buckets.login.window", "PT15M",
                "ratelimiter.buckets.login.deny", "mallory",
                "ratelimiter.buckets.login.allow", "partner",
                "ratelimiter.buckets.trial.limit", "1",
                "ratelimiter.buckets.trial.window", "PT1H",
                "ratelimiter.buckets.trial.mode", "shadow")));
    }

    @AfterEach
    void stop() {
        cdi.close();
        provider.close();
    }

    /** Runs the call inside a recording span, as a server's instrumentation opens one per request. */
    private SpanData inSpan(Consumer<RateLimits> call) {
        Span span = tracer.spanBuilder("GET /api/login").startSpan();
        try (Scope ignored = span.makeCurrent()) {
            call.accept(cdi.select(RateLimits.class));
        } finally {
            span.end();
        }
        List<SpanData> finished = spans.getFinishedSpanItems();
        SpanData last = finished.get(finished.size() - 1);
        spans.reset();
        return last;
    }

    @Test
    @DisplayName("allowed, then refused: the attributes say bucket, outcome and remaining; a refusal adds the event ratelimit.refused with its Retry-After")
    void allowedThenRefused() {
        SpanData allowed = inSpan(limits -> limits.consume("login", "alice"));
        assertThat(allowed.getAttributes().get(BUCKET)).isEqualTo("login");
        assertThat(allowed.getAttributes().get(OUTCOME)).isEqualTo("allowed");
        assertThat(allowed.getAttributes().get(REMAINING)).isEqualTo(1L);
        assertThat(allowed.getAttributes().get(AttributeKey.stringKey("ratelimit.plan"))).isEqualTo("none");
        assertThat(allowed.getAttributes().get(AttributeKey.booleanKey("ratelimit.fallback"))).isFalse();
        assertThat(allowed.getEvents()).isEmpty();

        SpanData refused = inSpan(limits -> {
            limits.consume("login", "alice");
            limits.consume("login", "alice");
        });
        assertThat(refused.getAttributes().get(OUTCOME)).as("the last decision of the span").isEqualTo("refused");
        assertThat(refused.getAttributes().get(REMAINING)).isZero();
        assertThat(refused.getEvents()).singleElement().satisfies((EventData event) -> {
            assertThat(event.getName()).isEqualTo("ratelimit.refused");
            assertThat(event.getAttributes().get(BUCKET)).isEqualTo("login");
            assertThat(event.getAttributes().get(AttributeKey.longKey("ratelimit.retry_after"))).isEqualTo(900L);
        });
        assertThat(refused.getAttributes().asMap().values()).as("never the key").noneMatch(value ->
                value.toString().contains("alice"));
    }

    @Test
    @DisplayName("the lists and shadow mode have outcomes of their own: deny_listed (with the event), allow_listed, shadow_refused (without)")
    void listedAndShadow() {
        SpanData denied = inSpan(limits -> limits.consume("login", "mallory"));
        assertThat(denied.getAttributes().get(OUTCOME)).isEqualTo("deny_listed");
        assertThat(denied.getEvents()).extracting(EventData::getName).containsExactly("ratelimit.refused");

        SpanData allowed = inSpan(limits -> {
            for (int i = 0; i < 3; i++) {
                limits.consume("login", "partner");
            }
        });
        assertThat(allowed.getAttributes().get(OUTCOME)).isEqualTo("allow_listed");
        assertThat(allowed.getEvents()).isEmpty();

        SpanData shadow = inSpan(limits -> {
            limits.consume("trial", "bob");
            limits.consume("trial", "bob");
        });
        assertThat(shadow.getAttributes().get(OUTCOME)).isEqualTo("shadow_refused");
        assertThat(shadow.getAttributes().get(BUCKET)).isEqualTo("trial");
        assertThat(shadow.getEvents()).isEmpty();
    }

    @Test
    @DisplayName("the refusal that sets a block and every refusal by it say outcome blocked, with the event and the block's Retry-After")
    void blocked() {
        cdi.close();
        cdi = CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.buckets.login.limit", "1",
                "ratelimiter.buckets.login.window", "PT15M",
                "ratelimiter.buckets.login.block", "PT1H")));
        SpanData refused = inSpan(limits -> {
            limits.consume("login", "alice");
            limits.consume("login", "alice");
        });
        assertThat(refused.getAttributes().get(OUTCOME)).as("the limits refused; the block starts").isEqualTo("blocked");
        SpanData blocked = inSpan(limits -> limits.consume("login", "alice"));
        assertThat(blocked.getAttributes().get(OUTCOME)).isEqualTo("blocked");
        assertThat(blocked.getEvents()).singleElement().satisfies((EventData event) ->
                assertThat(event.getAttributes().get(AttributeKey.longKey("ratelimit.retry_after"))).isEqualTo(3_600L));
    }

    @Test
    @DisplayName("while the shared store is down, a fallback bucket's decisions say ratelimit.fallback=true")
    void decidedByTheFallback() {
        cdi.close();
        cdi = CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.backend", MapStoreProvider.NAME,
                "ratelimiter.buckets.login.limit", "2",
                "ratelimiter.buckets.login.window", "PT15M")), CreatedStores.class);
        assertThat(inSpan(limits -> limits.consume("login", "alice")).getAttributes()
                .get(AttributeKey.booleanKey("ratelimit.fallback"))).as("the store decides").isFalse();
        cdi.select(CreatedStores.class).stores().get(0).down(true);
        SpanData outage = inSpan(limits -> limits.consume("login", "alice"));
        assertThat(outage.getAttributes().get(AttributeKey.booleanKey("ratelimit.fallback"))).isTrue();
        assertThat(outage.getAttributes().get(OUTCOME)).isEqualTo("allowed");
        assertThat(outage.getAttributes().get(REMAINING)).as("the fallback goes on from the store's count").isZero();
    }

    @Test
    @DisplayName("without a recording span nothing is traced and nothing fails")
    void noSpan() {
        assertThat(cdi.select(RateLimits.class).consume("login", "carol").isAllowed()).isTrue();
        assertThat(spans.getFinishedSpanItems()).isEmpty();
    }
}
