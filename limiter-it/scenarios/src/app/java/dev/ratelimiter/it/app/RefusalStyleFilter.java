package dev.ratelimiter.it.app;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.ext.Provider;

/**
 * Reads {@code X-Refusal-Style} into the request's {@link RefusalStyle}, before the library's global filter
 * ({@code Priorities.AUTHENTICATION + 1}) can refuse the request.
 */
@Provider
@ApplicationScoped
@Priority(Priorities.AUTHENTICATION)
public class RefusalStyleFilter implements ContainerRequestFilter {

    /** The request header a scenario sets. */
    public static final String HEADER = "X-Refusal-Style";

    @Inject
    RefusalStyle style;

    @Override
    public void filter(ContainerRequestContext request) {
        style.style(request.getHeaderString(HEADER));
    }
}
