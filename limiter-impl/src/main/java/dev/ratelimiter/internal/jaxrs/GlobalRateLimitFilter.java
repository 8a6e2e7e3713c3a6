package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimiterUnavailableException;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.call.AppliedLimits;
import dev.ratelimiter.internal.cdi.call.KeyResolverInvoker;
import dev.ratelimiter.internal.cdi.call.PlanResolvers;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.core.decision.CountedCall;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.plan.Planner;
import dev.ratelimiter.internal.core.settings.FailureCounting;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.jaxrs.RateLimiterFeature;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.PathSegment;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.Provider;

import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The global limit, and the place where each request's identity is resolved once.
 *
 * <p>A post-matching filter at {@code Priorities.AUTHENTICATION + 1}: it runs after the application's own
 * authentication filter, so it sees the principal that filter set. For every request it records the principal's
 * name and the client address in {@link RequestIdentity} (read by the {@code @RateLimited} interceptor). For
 * requests whose path after the context root starts with one of {@code ratelimiter.api.path-prefixes} it then
 * counts an attempt: bucket {@code api-authenticated} keyed by principal, or {@code api-anonymous} keyed by
 * client address (or by the key of the {@code RateLimitKeyResolver} named by {@code ratelimiter.api.key-resolver},
 * falling back to that identity when it gives none), under the limits of the key's plan where the bucket's
 * {@code plan-resolver} names a {@code RateLimitPlanResolver} (docs/plans.md), and aborts with 429 (or 503 for a fail-closed outage) before
 * the resource method runs (or the application's {@code RateLimitRefusalHandler} response, see
 * {@link RefusalResponder}).
 * CORS preflights (OPTIONS with {@code Origin} and {@code Access-Control-Request-Method}) are not counted, and
 * nothing is while {@code ratelimiter.enabled=false} or {@code ratelimiter.api.enabled=false}.
 *
 * <p>Registered by provider scanning, or by {@link RateLimiterFeature} where the application turns scanning off;
 * registered both ways, it still counts each request once.
 *
 * <p>On Quarkus REST the filters of non-blocking endpoints run on the Vert.x event loop; there a Valkey or
 * PostgreSQL decision runs on a worker thread while the request is suspended ({@link RequestOffload}).
 */
@Provider
@ApplicationScoped
@Priority(Priorities.AUTHENTICATION + 1)
public class GlobalRateLimitFilter implements ContainerRequestFilter {

    @Inject
    LimiterConfiguration configuration;

    @Inject
    ClientAddressSource clientAddresses;

    @Inject
    RateLimitDecider decider;

    @Inject
    RequestIdentity identity;

    @Inject
    KeyResolverInvoker resolvers;

    @Inject
    RefusalResponder refusals;

    @Inject
    PlanResolvers plans;

    /**
     * The request property holding the reader of this request's verdicts (the {@link AppliedLimits.Handle} that
     * {@link RequestIdentity#resolve} returns); its presence also says the filter already ran for the request.
     */
    static final String APPLIED = AppliedLimits.class.getName();

    private volatile RequestOffload offload;
    // Fixed once the application serves (the store is chosen at startup): read once rather than through a bean's
    // client proxy on every request, each of which looks up the bean's context. Not the context root: the library in
    // an EAR's lib/ is one filter for several web modules.
    private volatile Boolean blocking;

    @Override
    public void filter(ContainerRequestContext request) {
        if (request.getProperty(APPLIED) != null) {
            return; // registered twice (found by scanning and by RateLimiterFeature): count the request once
        }
        Principal principal = request.getSecurityContext() == null ? null
                : request.getSecurityContext().getUserPrincipal();
        String name = principal == null ? null : principal.getName();
        String principalName = name == null || name.isBlank() ? null : name; // blank: anonymous, as in RequestIdentity
        String clientAddress = clientAddresses.clientAddress(request);
        AppliedLimits.Handle verdicts = identity.resolve(principalName, clientAddress,
                new JaxrsRequestAttributes(request));
        request.setProperty(APPLIED, verdicts);
        LimiterSettings settings = configuration.settings();
        if (!settings.enabled() || !settings.globalLimit() || isPreflight(request)
                || !limited(request.getUriInfo(), settings.pathPrefixes())) {
            return;
        }
        boolean authenticated = principalName != null;
        String bucketName = authenticated ? LimiterSettings.API_AUTHENTICATED : LimiterSettings.API_ANONYMOUS;
        Bucket configured = settings.bucket(bucketName).orElseGet(() -> decider.bucket(bucketName));
        // The principal and the address each count in a namespace of its own: a user named 127.0.0.1 and an
        // anonymous caller from 127.0.0.1 never share a counter (docs/guide.md#keys-and-privacy)
        RawKey identityKey = authenticated
                ? new RawKey(principalName, KeyNormalization.NONE, KeyNamespace.PRINCIPAL)
                : new RawKey(clientAddress, KeyNormalization.NONE, KeyNamespace.CLIENT_ADDRESS);
        Optional<KeyResolverInvoker.Resolver> resolver = resolvers.global();
        RawKey key = resolver.isEmpty() ? identityKey
                : resolvers.resolve(resolver.get(), resolvers.filterContext(configured.name(), identity))
                .orElse(identityKey);
        // The call's limits: its plan's, where the bucket's plan-resolver property names a resolver (docs/plans.md)
        Optional<Planner> planner = plans.planner(configured, null);
        Bucket cached = planner.isEmpty() ? configured : plans.cached(planner.get(), key, 1);
        Bucket bucket = cached != null ? cached
                : plans.resolve(planner.get(), key, 1, resolvers.filterContext(configured.name(), identity));
        Consumer<Verdict> recorder = verdicts.recorder(bucket);
        Function<Verdict, Response> apply = verdict -> {
            recorder.accept(verdict);
            return switch (verdict.outcome()) {
                case DENIED -> refusals.respond(new RateLimitExceededException(bucket, verdict));
                case UNAVAILABLE -> refusals.respond(new RateLimiterUnavailableException(bucket, verdict));
                default -> null;
            };
        };
        Supplier<Verdict> decision;
        FailureCounting counting = settings.counting(bucket);
        if (counting.failuresOnly() || bucket.isConcurrency()) {
            // Given back by RefundResponseFilter once the response's status is known
            // (docs/guide.md#counting-failures-only); a permit whatever the status, or at the request's end if no
            // response is filtered (docs/guide.md#concurrency-limits)
            List<CountedCall> counted = new ArrayList<>(1);
            RefundResponseFilter.Pending pending = new RefundResponseFilter.Pending(counting, counted,
                    verdicts.replacer(bucket));
            request.setProperty(RefundResponseFilter.COUNTED, pending);
            if (bucket.isConcurrency()) {
                verdicts.atEnd(() -> pending.givenBack(decider));
            }
            decision = () -> decider.decide(bucket, key, 1, counted);
        } else {
            decision = () -> decider.decide(bucket, key, 1);
        }
        if (blocking() && offload().offload(request, decision, apply)) {
            return;
        }
        Response refusal = apply.apply(decision.get());
        if (refusal != null) {
            request.abortWith(refusal);
        }
    }

    private boolean blocking() {
        Boolean current = blocking;
        if (current == null) {
            current = decider.blocking();
            blocking = current;
        }
        return current;
    }

    private RequestOffload offload() {
        RequestOffload current = offload;
        if (current == null) {
            current = RequestOffloads.detect();
            offload = current;
        }
        return current;
    }

    /**
     * A CORS preflight (Fetch standard): OPTIONS with an {@code Origin} and a non-empty
     * {@code Access-Control-Request-Method}. Anything short of that is an ordinary OPTIONS request and counts.
     */
    private static boolean isPreflight(ContainerRequestContext request) {
        if (!HttpMethod.OPTIONS.equals(request.getMethod())) {
            return false;
        }
        String origin = request.getHeaderString("Origin");
        String method = request.getHeaderString("Access-Control-Request-Method");
        return origin != null && !origin.isBlank() && method != null && !method.isBlank();
    }

    private boolean limited(UriInfo uri, List<String> prefixes) {
        String path = pathAfterContextRoot(uri);
        for (String prefix : prefixes) {
            if (path.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The matched path after the context root, decoded, without matrix parameters or dot segments, ending with
     * {@code /}: {@code /api/projects/}. Built from the application's base path and the path segments JAX-RS
     * matched, so {@code /api/./projects}, {@code /api;x=1/projects} and {@code /%61pi/projects} all count.
     */
    private String pathAfterContextRoot(UriInfo uri) {
        StringBuilder path = new StringBuilder(uri.getBaseUri().normalize().getPath());
        for (PathSegment segment : uri.getPathSegments(true)) {
            if (segment.getPath().isEmpty()) {
                continue;
            }
            if (path.length() == 0 || path.charAt(path.length() - 1) != '/') {
                path.append('/');
            }
            path.append(segment.getPath());
        }
        path.append('/');
        String contextPath = clientAddresses.server().contextPath();
        String full = path.toString();
        return full.startsWith(contextPath) ? full.substring(contextPath.length()) : full;
    }
}
