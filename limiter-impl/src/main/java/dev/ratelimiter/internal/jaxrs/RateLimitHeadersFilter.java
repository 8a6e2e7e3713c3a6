package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.internal.cdi.call.AppliedLimits;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.core.settings.HeaderFields;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.Provider;

import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Writes {@code RateLimit-Policy} and {@code RateLimit} (see {@link RateLimitHeaders}) for every bucket consulted
 * during the request, and the older one-window fields ({@link LegacyRateLimitHeaders}) for the most restrictive, as
 * {@code ratelimiter.headers.fields} chooses: always on 429 and 503 refusals, and on other responses unless
 * {@code ratelimiter.headers.on-success=false}. Responses of requests that no limit consulted are left alone, and
 * so is a field the response already carries (set by an application's {@code RateLimitRefusalHandler}). Limits
 * consulted include {@code RateLimits.consume} calls made during the request.
 */
@Provider
@ApplicationScoped
@Priority(Priorities.HEADER_DECORATOR)
public class RateLimitHeadersFilter implements ContainerResponseFilter {

    @Inject
    LimiterConfiguration configuration;

    // X-RateLimit-Reset is a Unix time: the machine's wall clock now, not the library's clock (the startup instant
    // plus the time elapsed, which a wall clock stepped after startup leaves behind).
    private final InstantSource wallClock = InstantSource.system();

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        // The request's own verdicts, through the reader the request filter left: this may run on the thread that
        // completed a CompletionStage, where the request context is not active.
        if (!(request.getProperty(GlobalRateLimitFilter.APPLIED) instanceof Supplier<?> reader)) {
            return;
        }
        @SuppressWarnings("unchecked")
        List<AppliedLimits.Applied> verdicts = (List<AppliedLimits.Applied>) reader.get();
        if (verdicts.isEmpty()) {
            return;
        }
        int status = response.getStatus();
        boolean refusal = status == 429 || status == 503;
        if (!refusal && !configuration.settings().headersOnSuccess()) {
            return;
        }
        MultivaluedMap<String, Object> headers = response.getHeaders();
        Set<HeaderFields> fields = configuration.settings().headerFields();
        // A response that carries its own (an application's RateLimitRefusalHandler, docs/guide.md#refusal-responses)
        // keeps them.
        if (fields.contains(HeaderFields.DRAFT_10)) {
            if (!headers.containsKey(RateLimitHeaders.POLICY)) {
                headers.putSingle(RateLimitHeaders.POLICY, RateLimitHeaders.policy(verdicts));
            }
            if (!headers.containsKey(RateLimitHeaders.RATE_LIMIT)) {
                headers.putSingle(RateLimitHeaders.RATE_LIMIT, RateLimitHeaders.rateLimit(verdicts));
            }
        }
        LegacyRateLimitHeaders.write(headers, fields, verdicts, wallClock.instant());
    }
}
