package dev.ratelimiter.internal.jaxrs;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Optional;

/**
 * Quarkus REST's view of the current request, through the request-scoped Vert.x {@link HttpServerRequest} bean
 * that Quarkus produces. Looked up, not injected, so that no bean has an injection point typed with a Vert.x
 * class; this class is loaded only after {@link ServerRequests#detect()} found the Vert.x API. The context root is
 * Quarkus's {@code quarkus.http.root-path}.
 */
final class VertxServerRequest implements ServerRequest {

    // Resolved once; each get() yields the request-scoped bean of the request being handled.
    private final Instance<HttpServerRequest> requests;
    private final String contextPath;

    private VertxServerRequest(Instance<HttpServerRequest> requests, String contextPath) {
        this.requests = requests;
        this.contextPath = contextPath;
    }

    /** The implementation, if the container has a Vert.x {@code HttpServerRequest} bean (Quarkus). */
    static Optional<ServerRequest> create() {
        Instance<HttpServerRequest> requests = CDI.current().select(HttpServerRequest.class);
        if (!requests.isResolvable()) {
            return Optional.empty();
        }
        String rootPath = ConfigProvider.getConfig().getOptionalValue("quarkus.http.root-path", String.class)
                .orElse("/").strip();
        while (rootPath.endsWith("/")) {
            rootPath = rootPath.substring(0, rootPath.length() - 1);
        }
        if (!rootPath.isEmpty() && !rootPath.startsWith("/")) {
            rootPath = "/" + rootPath;
        }
        return Optional.of(new VertxServerRequest(requests, rootPath));
    }

    @Override
    public Optional<String> peerAddress() {
        SocketAddress address = requests.get().remoteAddress();
        return address == null ? Optional.empty() : Optional.ofNullable(address.hostAddress());
    }

    @Override
    public String contextPath() {
        return contextPath;
    }
}
