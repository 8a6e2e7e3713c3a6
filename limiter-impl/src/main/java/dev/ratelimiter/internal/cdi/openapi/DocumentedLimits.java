package dev.ratelimiter.internal.cdi.openapi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;

import dev.ratelimiter.internal.core.settings.HeaderFields;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the application's OpenAPI document shows of the limits (docs/openapi.md): the global filter's path prefixes
 * and buckets, and each JAX-RS resource method that a bucket limits, by HTTP method and path. Plain values, read
 * from the settings and the bean classes by {@link ResourceLimits}, so the OpenAPI adapter needs no CDI.
 *
 * @param enabled      {@code false} when {@code ratelimiter.enabled} or {@code ratelimiter.openapi.enabled} is
 *                     {@code false}: the document is left as it is
 * @param pathPrefixes the global filter's prefixes after the context root ({@code /api/}); empty when
 *                     {@code ratelimiter.api.enabled=false}
 * @param global       the global filter's buckets ({@code api-authenticated}, {@code api-anonymous}); empty when
 *                     it is off
 * @param operations   the resource methods with {@code @RateLimited} or {@code @RateLimitedBy}
 * @param headerFields the families of rate limit header fields a refusal carries beside {@code Retry-After}
 *                     ({@code ratelimiter.headers.fields}), at least one
 */
public record DocumentedLimits(boolean enabled, List<String> pathPrefixes, List<Limit> global,
                               List<Operation> operations, Set<HeaderFields> headerFields) {

    /** Nothing to show: the document is left as it is. */
    public static final DocumentedLimits NONE = new DocumentedLimits(false, List.of(), List.of(), List.of());

    public DocumentedLimits {
        pathPrefixes = List.copyOf(pathPrefixes);
        global = List.copyOf(global);
        operations = List.copyOf(operations);
        headerFields = Collections.unmodifiableSet(EnumSet.copyOf(headerFields));
    }

    /** The limits with the default header fields, draft-10's alone. */
    public DocumentedLimits(boolean enabled, List<String> pathPrefixes, List<Limit> global,
                            List<Operation> operations) {
        this(enabled, pathPrefixes, global, operations, EnumSet.of(HeaderFields.DRAFT_10));
    }

    /**
     * One resource method that a bucket limits.
     *
     * @param httpMethod the HTTP method, upper case ({@code GET})
     * @param path       its path below the application's path, from the class's and the method's {@code @Path},
     *                   starting with {@code /}, templates without their regular expressions ({@code /projects/{id}})
     * @param javaMethod {@code com.example.Reports#report(String)}, for messages
     * @param limits     its buckets in the order they decide
     */
    public record Operation(String httpMethod, String path, String javaMethod, List<Limit> limits) {

        public Operation {
            limits = List.copyOf(limits);
        }
    }

    /**
     * One bucket an operation counts in.
     *
     * @param bucket          the bucket under its own limits
     * @param source          where the limit is declared: {@code RateLimited}, {@code RateLimitedBy} or
     *                        {@code global}
     * @param key             what keys it ({@code principal}, {@code client-address}, {@code identity},
     *                        {@code parameter}, {@code resolver}, or the sources in order such as
     *                        {@code resolver, client-address}); {@code null} when the binding is on a bean the
     *                        resource calls ({@code RateLimitedBy})
     * @param keyMayBeMissing whether a call can lack a key and be refused with 400 (a resolver or the principal,
     *                        without a fallback)
     * @param plans           the bucket's declared plans under their limits, by plan name; empty when none
     * @param planResolver    the plan resolver, as the annotation or the {@code plan-resolver} property names it;
     *                        {@code null} when none
     */
    public record Limit(Bucket bucket, String source, String key, boolean keyMayBeMissing, Map<String, Bucket> plans,
                        String planResolver) {

        public Limit {
            plans = Map.copyOf(plans);
        }

        /** Whether an outage of the store refuses its calls with 503 ({@code on-outage=fail-closed}). */
        public boolean failsClosed() {
            return bucket.onOutage() == OutagePolicy.FAIL_CLOSED;
        }
    }
}
