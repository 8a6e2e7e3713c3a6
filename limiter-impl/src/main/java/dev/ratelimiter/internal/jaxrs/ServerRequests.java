package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.internal.core.settings.ClassPresence;

import java.util.Optional;

/** Chooses the {@link ServerRequest} implementation for the platform the library runs on. */
final class ServerRequests {

    private static final System.Logger LOG = System.getLogger(ServerRequests.class.getName());

    private ServerRequests() {
    }

    /**
     * @return the Vert.x implementation where a Vert.x {@code HttpServerRequest} bean resolves (Quarkus REST); the
     *         servlet implementation where the servlet API is present; otherwise one that knows no peer, in
     *         which case clients are keyed by {@code X-Forwarded-For} never and by the address "unknown" (logged)
     */
    static ServerRequest detect() {
        // Vert.x first: a Quarkus application with a servlet extension still serves Quarkus REST outside servlets.
        // The bean, not just the class, decides: a WAR may bundle vertx-core for other uses.
        if (ClassPresence.present("io.vertx.core.http.HttpServerRequest", ServerRequests.class)) {
            Optional<ServerRequest> vertx = VertxServerRequest.create();
            if (vertx.isPresent()) {
                return vertx.get();
            }
        }
        if (ClassPresence.present("jakarta.servlet.http.HttpServletRequest", ServerRequests.class)) {
            return new ServletServerRequest();
        }
        LOG.log(System.Logger.Level.WARNING, "Neither a Vert.x request bean nor the servlet API found: the rate "
                + "limiter cannot see client addresses, so anonymous requests share one counter");
        return new ServerRequest() {
            @Override
            public Optional<String> peerAddress() {
                return Optional.empty();
            }

            @Override
            public String contextPath() {
                return "";
            }
        };
    }

}
