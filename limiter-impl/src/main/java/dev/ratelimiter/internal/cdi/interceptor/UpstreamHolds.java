package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.settings.BlockSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.client.ResponseProcessingException;
import jakarta.ws.rs.core.Response;

import java.time.Duration;
import java.time.InstantSource;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;

/**
 * Holds from the upstream (docs/guide.md#holds-from-the-upstream): when a call of a method whose bucket has
 * {@code upstream-hold-max} ends in the upstream's 429 (Too Many Requests, RFC 6585 §4) or 503 (Service Unavailable)
 * with a {@code Retry-After} (RFC 9110 §10.2.3: delay-seconds or an HTTP-date), the bucket holds the call's key, on
 * every replica, until then ({@link dev.ratelimiter.internal.core.decision.WaitDecisions#hold}). The answer is read where JAX-RS clients give it: a
 * returned {@link Response}, a thrown {@link WebApplicationException} (MicroProfile Rest Client's default for a status
 * of 400 or more) or {@link ResponseProcessingException}, anywhere in the causes; for a {@code CompletionStage}, when
 * it completes. A missing or malformed {@code Retry-After} holds nothing.
 */
@ApplicationScoped
public class UpstreamHolds {

    @Inject
    LimiterConfiguration configuration;

    @Inject
    RateLimitDecider decider;

    @Inject
    InstantSource clock;

    @Inject
    EventLoopOffload offload;

    /**
     * The method's buckets as decided, if any of them holds for its upstream; else {@code null}.
     *
     * @param limits  the method's limits
     * @param planned each limit's bucket under the call's plan, or {@code null}: the limits' own
     */
    Bucket[] holding(java.util.List<RateLimitedMethodCache.BoundLimit> limits, Bucket[] planned) {
        boolean any = false;
        for (int i = 0; i < limits.size() && !any; i++) {
            any = holds(limits.get(i).bucket());
        }
        if (!any) {
            return null;
        }
        if (planned != null) {
            return planned;
        }
        Bucket[] buckets = new Bucket[limits.size()];
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = limits.get(i).bucket();
        }
        return buckets;
    }

    /**
     * Runs the method, and holds each bucket that holds for its upstream, under its key, if its answer says so.
     *
     * @param buckets the method's buckets as decided
     * @param keys    each bucket's raw key, at the same index
     * @param run     runs the method
     * @return the method's result: a {@code CompletionStage} is watched and returned as it completes
     */
    Object proceed(Bucket[] buckets, RawKey[] keys, Callable<Object> run) throws Exception {
        Object result;
        try {
            result = run.call();
        } catch (Exception e) {
            observe(buckets, keys, null, e);
            throw e;
        }
        if (result instanceof CompletionStage<?> stage) {
            return stage.whenComplete((value, failure) -> observe(buckets, keys, value, failure));
        }
        observe(buckets, keys, result, null);
        return result;
    }

    private void observe(Bucket[] buckets, RawKey[] keys, Object result, Throwable failure) {
        Duration retryAfter = retryAfter(response(result, failure));
        if (retryAfter == null) {
            return;
        }
        // A stage of a reactive client completes on a Vert.x event loop, which must not wait for the store: the
        // holds are set from a worker there
        if (!decider.blocking() || !offload.offload(() -> hold(buckets, keys, retryAfter), (done, error) -> { })) {
            hold(buckets, keys, retryAfter);
        }
    }

    private Void hold(Bucket[] buckets, RawKey[] keys, Duration retryAfter) {
        for (int i = 0; i < buckets.length; i++) {
            if (holds(buckets[i]) && keys[i] != null) {
                decider.waits().hold(buckets[i], keys[i], retryAfter);
            }
        }
        return null;
    }

    private boolean holds(Bucket bucket) {
        BlockSettings settings = configuration.settings().blocks().get(bucket.name());
        return settings != null && settings.holdsForUpstream();
    }

    /** The upstream's response in a result or a failure's causes, or {@code null}. */
    private static Response response(Object result, Throwable failure) {
        if (result instanceof Response response) {
            return response;
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof WebApplicationException e) {
                return e.getResponse();
            }
            if (cause instanceof ResponseProcessingException e) {
                return e.getResponse();
            }
        }
        return null;
    }

    /**
     * How long a 429 or 503 response asks to wait: its {@code Retry-After} as delay-seconds or an HTTP-date from
     * now; {@code null} for another status, no header, a malformed one or a date already past.
     */
    Duration retryAfter(Response response) {
        if (response == null || response.getStatus() != 429 && response.getStatus() != 503) {
            return null;
        }
        String value = response.getHeaderString("Retry-After");
        if (value == null || value.isBlank()) {
            return null;
        }
        value = value.strip();
        if (value.chars().allMatch(Character::isDigit)) {
            try {
                long seconds = Long.parseLong(value);
                return seconds == 0 ? null : Duration.ofSeconds(seconds);
            } catch (NumberFormatException e) {
                return null; // beyond a long: malformed
            }
        }
        try {
            Duration left = Duration.between(clock.instant(),
                    ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
            return left.isNegative() || left.isZero() ? null : left;
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
