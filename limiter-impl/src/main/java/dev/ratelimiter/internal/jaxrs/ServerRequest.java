package dev.ratelimiter.internal.jaxrs;

import java.util.Optional;

/**
 * What the JAX-RS API does not tell about the current request: the direct peer's address and the context root.
 * One implementation per platform (servlet containers; Quarkus REST on Vert.x), chosen at run time by
 * {@link ServerRequests#detect()}.
 */
public interface ServerRequest {

    /** The direct peer's IP address as text, if the platform exposes it for the current request. */
    Optional<String> peerAddress();

    /** The context root of the current request ({@code ""} for the root context), never {@code null}. */
    String contextPath();
}
