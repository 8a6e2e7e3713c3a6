package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Verdict;
import jakarta.ws.rs.container.ContainerRequestContext;

import jakarta.ws.rs.core.Response;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Moves a blocking decision off a thread that must not block. Quarkus REST runs the filters of non-blocking
 * endpoints (those returning {@code Uni}, or marked {@code @NonBlocking}) on the Vert.x event loop, where a round
 * trip to Valkey or PostgreSQL would stall every other request of that loop
 * (docs/architecture.md#the-path-of-a-request). Servlet containers run filters on a request thread of their own and
 * need nothing.
 */
interface RequestOffload {

    /** For platforms whose filters may always block. */
    RequestOffload NONE = (request, decision, apply) -> false;

    /**
     * Runs {@code decision} on a worker thread and {@code apply} with its verdict afterwards, with the request
     * suspended in between, if the current thread must not block; then aborts the request with the response
     * {@code apply} returned, or lets it go on to the resource if that was {@code null}.
     *
     * @param request  the request being filtered
     * @param decision the blocking store call; it must not touch request-scoped beans (it runs on a worker thread
     *                 where the request context may not be active)
     * @param apply    what the filter does with the verdict (records it) and the refusal to answer with, or
     *                 {@code null}; it must not touch request-scoped beans either: it runs when the decision is
     *                 done, outside the filter call
     * @return {@code false} if the current thread may block: nothing was run and the caller decides inline;
     *         {@code true} if the decision was handed to a worker (the request resumes when it is applied, or with
     *         the decision's exception, which the platform maps as usual)
     */
    boolean offload(ContainerRequestContext request, Supplier<Verdict> decision, Function<Verdict, Response> apply);
}
