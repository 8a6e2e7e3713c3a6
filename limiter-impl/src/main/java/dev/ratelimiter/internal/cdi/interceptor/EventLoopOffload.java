package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.internal.core.settings.ClassPresence;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Moves a blocking decision of a {@code Uni} or {@code Multi} method off a Vert.x event loop: the decision runs on
 * the Vert.x worker pool, and what follows it (the method itself) back on the caller's context, so a reactive
 * client the method uses still finds its event loop. Where Vert.x is absent (Payara, Open Liberty) no thread is
 * an event loop and nothing moves.
 */
@ApplicationScoped
public class EventLoopOffload {

    /** Runs work elsewhere if the current thread must not block. */
    interface Offload {
        <T> boolean offload(Supplier<T> work, BiConsumer<T, Throwable> done);
    }

    private final Offload offload;

    /** Uses Vert.x where it is present; else never moves anything. */
    public EventLoopOffload() {
        this(ClassPresence.present("io.vertx.core.Context", EventLoopOffload.class) ? new VertxOffload()
                : new Offload() {
                    @Override
                    public <T> boolean offload(Supplier<T> work, BiConsumer<T, Throwable> done) {
                        return false;
                    }
                });
    }

    EventLoopOffload(Offload offload) {
        this.offload = offload;
    }

    /**
     * Runs {@code work} on a worker thread, then {@code done} with its result or failure on the current event
     * loop's context, if the current thread is a Vert.x event loop.
     *
     * @param work the blocking call; it must not touch request-scoped beans through their proxies
     * @param done receives the result, or {@code null} and what {@code work} threw
     * @return {@code false} if the current thread may block: nothing was run, the caller runs {@code work} itself
     */
    public <T> boolean offload(Supplier<T> work, BiConsumer<T, Throwable> done) {
        return offload.offload(work, done);
    }

    /** Loaded only where Vert.x is present. */
    private static final class VertxOffload implements Offload {
        @Override
        public <T> boolean offload(Supplier<T> work, BiConsumer<T, Throwable> done) {
            io.vertx.core.Context context = io.vertx.core.Vertx.currentContext();
            if (context == null || !io.vertx.core.Context.isOnEventLoopThread()) {
                return false;
            }
            // Unordered: decisions of different subscriptions need not queue behind each other.
            context.<T>executeBlocking(work::get, false).onComplete(result -> done.accept(result.result(),
                    result.failed() ? result.cause() : null));
            return true;
        }
    }
}
