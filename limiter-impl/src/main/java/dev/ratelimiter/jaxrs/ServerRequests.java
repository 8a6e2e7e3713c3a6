package dev.ratelimiter.jaxrs;

import dev.ratelimiter.core.ClassPresence;

import java.util.Optional;

/** Chooses the {@link ServerRequest} implementation for the platform the library runs on. */
final class ServerRequests {

    private static final System.Logger LOG = System.getLogger(ServerRequests.class.getName());

    private ServerRequests() {
    }

    /**
     * @return the servlet implementation where the servlet API is present; otherwise one that knows no peer, in
     *         which case clients are keyed by {@code X-Forwarded-For} never and by the address "unknown" (logged)
     */
    static ServerRequest detect() {
        if (ClassPresence.present("jakarta.servlet.http.HttpServletRequest", ServerRequests.class)) {
            return new ServletServerRequest();
        }
        LOG.log(System.Logger.Level.WARNING, "No servlet API found: the rate limiter cannot see client "
                + "addresses, so anonymous requests share one counter");
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
