package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.internal.cdi.call.RequestAttributes;
import jakarta.ws.rs.container.ContainerRequestContext;

import java.util.Optional;

/**
 * A request's headers and parameters as a key resolver reads them, straight from the filter's
 * {@link ContainerRequestContext} (post-matching, so the path parameters are those of the matched method).
 *
 * @param request the request being filtered
 */
record JaxrsRequestAttributes(ContainerRequestContext request) implements RequestAttributes {

    @Override
    public Optional<String> header(String name) {
        // getHeaderString joins repeated values with ','; the first value is what a key means here.
        return Optional.ofNullable(request.getHeaders().getFirst(name));
    }

    @Override
    public Optional<String> pathParameter(String name) {
        return Optional.ofNullable(request.getUriInfo().getPathParameters(true).getFirst(name));
    }

    @Override
    public Optional<String> queryParameter(String name) {
        return Optional.ofNullable(request.getUriInfo().getQueryParameters(true).getFirst(name));
    }
}
