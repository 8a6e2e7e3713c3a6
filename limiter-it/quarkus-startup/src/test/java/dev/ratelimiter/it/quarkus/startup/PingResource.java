package dev.ratelimiter.it.quarkus.startup;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** The smallest REST application: one resource, so the library's JAX-RS filter and mappers are part of it. */
@Path("/ping")
public class PingResource {

    @GET
    public String ping() {
        return "pong";
    }
}
