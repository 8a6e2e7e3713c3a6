package dev.ratelimiter.it.app;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/selfcall}: a resource limited at class level by bucket {@code selfcall} (3 a minute, keyed by the
 * request's identity) whose method calls another method of its own. Quarkus's ArC intercepts that call and Weld
 * (Payara, Open Liberty) does not; on every server one request counts one attempt
 * (docs/guide.md#several-limits-on-one-method).
 */
@Path("selfcall")
@RequestScoped
@RateLimited(bucket = "selfcall")
public class SelfCallResource {

    /** {@code GET}: "selfcall", through {@link #answer()}. */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String get() {
        return answer();
    }

    /** Limited by the class's binding too, and called from {@link #get()} on the same bean. */
    public String answer() {
        return "selfcall";
    }
}
