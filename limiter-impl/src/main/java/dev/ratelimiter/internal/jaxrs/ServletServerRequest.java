package dev.ratelimiter.internal.jaxrs;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.servlet.http.HttpServletRequest;

import java.util.Optional;

/**
 * The servlet container's view of the current request (Payara, Open Liberty), through the built-in
 * request-scoped {@link HttpServletRequest} bean. Looked up, not injected, so that no bean has an injection point
 * typed with a servlet class on a platform without servlets; this class is loaded only after
 * {@link ServerRequests#detect()} found the servlet API.
 */
final class ServletServerRequest implements ServerRequest {

    // Resolved once; each get() yields the request-scoped bean of the request being handled.
    private final Instance<HttpServletRequest> requests = CDI.current().select(HttpServletRequest.class);

    @Override
    public Optional<String> peerAddress() {
        return Optional.ofNullable(request().getRemoteAddr());
    }

    @Override
    public String contextPath() {
        String path = request().getContextPath();
        return path == null ? "" : path;
    }

    private HttpServletRequest request() {
        return requests.get();
    }
}
