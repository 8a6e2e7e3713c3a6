package dev.ratelimiter.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

/**
 * A generic base of resources, as applications write one: it declares the resource method and carries no
 * {@code @RateLimited}; the subclass does.
 */
public abstract class CrudBase {

    /** {@code GET}: the entries (fixed ones). */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<String> list() {
        return List.of("first", "second");
    }
}
