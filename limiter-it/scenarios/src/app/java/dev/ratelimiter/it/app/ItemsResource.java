package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.Path;

/**
 * {@code GET /api/items}: a class-level binding on a subclass, limiting the method it inherits from
 * {@link CrudBase} with bucket {@code imports} (3 per hour, keyed by the request's identity).
 */
@Path("items")
@RequestScoped
@RateLimited(bucket = "imports")
public class ItemsResource extends CrudBase {
}
