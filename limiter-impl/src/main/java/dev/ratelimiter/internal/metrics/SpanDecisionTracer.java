package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.monitor.DecisionTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;

/**
 * Puts each decision on the current OpenTelemetry span (the server span MicroProfile Telemetry or Quarkus opens for
 * the request) as attributes, and a refusal as an event: docs/operations.md#decisions-on-the-trace. The span comes
 * from the OpenTelemetry API's context ({@link Span#current()}), so this needs no bean and follows the server's
 * instrumentation; a span that does not record (no SDK, not sampled, no span at all) costs one look-up.
 *
 * <p>Attributes, set again by each decision of the request, so a request of several buckets shows the last decided
 * (the refusing one, when one refuses): {@code ratelimit.bucket}, {@code ratelimit.plan}, {@code ratelimit.outcome}
 * ({@link DecisionTracer}'s outcomes), {@code ratelimit.remaining}, {@code ratelimit.fallback}. The event
 * {@code ratelimit.refused} carries the bucket, the outcome and {@code ratelimit.retry_after} (seconds). Never a key.
 *
 * <p>Touches the OpenTelemetry API only: compiled against the oldest a supported server ships (1.39).
 */
final class SpanDecisionTracer implements DecisionTracer {

    static final AttributeKey<String> BUCKET = AttributeKey.stringKey("ratelimit.bucket");
    static final AttributeKey<String> PLAN = AttributeKey.stringKey("ratelimit.plan");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("ratelimit.outcome");
    static final AttributeKey<Long> REMAINING = AttributeKey.longKey("ratelimit.remaining");
    static final AttributeKey<Boolean> FALLBACK = AttributeKey.booleanKey("ratelimit.fallback");
    static final AttributeKey<Long> RETRY_AFTER = AttributeKey.longKey("ratelimit.retry_after");
    static final String REFUSED_EVENT = "ratelimit.refused";

    @Override
    public void decided(Bucket bucket, String outcome, Verdict verdict, boolean fallback) {
        Span span = Span.current();
        if (!span.isRecording()) {
            return;
        }
        span.setAttribute(BUCKET, bucket.name());
        span.setAttribute(PLAN, bucket.plan());
        span.setAttribute(OUTCOME, outcome);
        span.setAttribute(REMAINING, verdict.remaining());
        span.setAttribute(FALLBACK, fallback);
        if (!verdict.isAllowed()) {
            span.addEvent(REFUSED_EVENT, Attributes.of(BUCKET, bucket.name(), OUTCOME, outcome, RETRY_AFTER,
                    verdict.retryAfterSeconds()));
        }
    }
}
