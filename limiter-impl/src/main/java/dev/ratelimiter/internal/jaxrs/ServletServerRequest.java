package dev.ratelimiter.internal.jaxrs;

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

    // The bean's client proxy, got once: the bean is request-scoped, so each call of the proxy reaches the request
    // being handled (an Instance.get() per request would resolve the bean and make a reference every time).
    private final HttpServletRequest request = CDI.current().select(HttpServletRequest.class).get();

    @Override
    public Optional<String> peerAddress() {
        return Optional.ofNullable(request.getRemoteAddr());
    }

    @Override
    public String contextPath() {
        String path = request.getContextPath();
        return path == null ? "" : path;
    }
}
