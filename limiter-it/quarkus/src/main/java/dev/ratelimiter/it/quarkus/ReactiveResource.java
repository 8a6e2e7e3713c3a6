package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.time.Duration;

/**
 * Non-blocking endpoints of the Quarkus test application (they return {@code Uni}, so Quarkus REST runs them and
 * their filters on the Vert.x event loop). Under {@code /api/}, so the global limit applies to them.
 */
@Path("reactive")
public class ReactiveResource {

    /** {@code GET /api/reactive/greeting}: a greeting, without blocking. */
    @GET
    @Path("greeting")
    @Produces(MediaType.TEXT_PLAIN)
    public Uni<String> greeting() {
        return Uni.createFrom().item("hello");
    }

    /**
     * {@code GET /api/reactive/quota}: a {@code @RateLimited} non-blocking method (bucket {@code reactive}, keyed by
     * client address), counted when Quarkus REST subscribes; with a shared backend, on a worker thread.
     */
    @GET
    @Path("quota")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited(bucket = "reactive")
    public Uni<String> quota() {
        return Uni.createFrom().item("counted");
    }

    /**
     * {@code GET /api/reactive/partner?account=A}: a {@code @RateLimited} non-blocking method whose bucket
     * ({@code reactive-partner}: a token bucket of 2 a second that reserves up to 3 s ahead) makes a call over its rate
     * wait for its turn without a thread (docs/guide.md#waiting-instead-of-refusing); it answers the thread it ran on.
     */
    @GET
    @Path("partner")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited(bucket = "reactive-partner")
    public Uni<String> partner(@QueryParam("account") @RateLimitKey String account) {
        return Uni.createFrom().item(() -> "quoted for " + account + " on " + Thread.currentThread().getName());
    }

    /**
     * {@code GET /api/reactive/feed}: a {@code @RateLimited} {@code Multi} (bucket {@code reactive}), refused before
     * its first item.
     */
    @GET
    @Path("feed")
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited(bucket = "reactive")
    public Multi<String> feed() {
        return Multi.createFrom().items("first", "second");
    }

    /**
     * {@code GET /api/reactive/stall}: blocks its event loop for two seconds, on purpose. The test that looks for
     * blocked-thread warnings calls it once to prove it would see one.
     */
    @GET
    @Path("stall")
    @Produces(MediaType.TEXT_PLAIN)
    public Uni<String> stall() throws InterruptedException {
        Thread.sleep(Duration.ofSeconds(2).toMillis());
        return Uni.createFrom().item("stalled");
    }
}
