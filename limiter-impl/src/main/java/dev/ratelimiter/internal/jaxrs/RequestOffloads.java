package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.internal.core.settings.ClassPresence;

/** Chooses the {@link RequestOffload} for the platform the library runs on. */
final class RequestOffloads {

    private RequestOffloads() {
    }

    /**
     * @return the Vert.x offload where both Vert.x and the Quarkus REST server SPI are present (Quarkus REST);
     *         otherwise {@link RequestOffload#NONE}: servlet containers run filters on threads that may block
     */
    static RequestOffload detect() {
        if (ClassPresence.present("io.vertx.core.Context", RequestOffloads.class) && ClassPresence.present(
                "org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext",
                RequestOffloads.class)) {
            return new VertxRequestOffload();
        }
        return RequestOffload.NONE;
    }
}
