package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;

import java.util.List;

/**
 * Resolves the client address of a JAX-RS request from the platform's peer address and the
 * {@code X-Forwarded-For} header, with the configured trusted proxies.
 */
@ApplicationScoped
public class ClientAddressSource {

    @Inject
    LimiterConfiguration configuration;

    private ClientAddressResolver resolver;
    private volatile ServerRequest server;

    /** Builds the resolver once, from the settings (their trusted proxies were parsed and checked at startup). */
    @PostConstruct
    void start() {
        LimiterSettings settings = configuration.settings();
        resolver = new ClientAddressResolver(settings.trustedProxies(), settings.ipv6PrefixLength());
    }

    /** The resolver built from {@code ratelimiter.trusted-proxies} and {@code ratelimiter.ipv6-prefix-length}. */
    public ClientAddressResolver resolver() {
        return resolver;
    }

    /** The platform's view of the current request. */
    public ServerRequest server() {
        ServerRequest current = server;
        if (current == null) {
            current = ServerRequests.detect();
            server = current;
        }
        return current;
    }

    /** The client address key of the request. */
    public String clientAddress(ContainerRequestContext request) {
        List<String> forwardedFor = request.getHeaders().get("X-Forwarded-For");
        return resolver().resolve(server().peerAddress().orElse(null),
                forwardedFor == null ? List.of() : forwardedFor);
    }
}
