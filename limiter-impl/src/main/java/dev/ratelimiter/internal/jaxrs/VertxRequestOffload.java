package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Verdict;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Quarkus REST: on an event-loop thread, suspends the request, runs the decision on the Vert.x worker pool and
 * resumes on the request's own context. Loaded only after {@link RequestOffloads#detect()} found both Vert.x and
 * the Quarkus REST server SPI.
 */
final class VertxRequestOffload implements RequestOffload {

    @Override
    public boolean offload(ContainerRequestContext request, Supplier<Verdict> decision,
                           Function<Verdict, Response> apply) {
        if (!Context.isOnEventLoopThread()
                || !(request instanceof ResteasyReactiveContainerRequestContext suspendable)) {
            return false;
        }
        Context context = Vertx.currentContext();
        if (context == null) {
            return false;
        }
        suspendable.suspend();
        // Unordered: decisions of different requests on one connection need not queue behind each other.
        context.executeBlocking(decision::get, false).onComplete(result -> {
            if (result.failed()) {
                suspendable.resume(result.cause());
                return;
            }
            Response refusal;
            try {
                refusal = apply.apply(result.result());
            } catch (RuntimeException | Error e) {
                // an Error escaping this handler would leave the request suspended for good
                suspendable.resume(e);
                return;
            }
            // abortWith resumes a suspended request itself: resuming it again would run its handlers twice.
            if (refusal != null) {
                suspendable.abortWith(refusal);
            } else {
                suspendable.resume();
            }
        });
        return true;
    }
}
