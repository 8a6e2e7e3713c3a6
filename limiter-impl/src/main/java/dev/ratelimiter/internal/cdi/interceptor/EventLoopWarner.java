package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.settings.ClassPresence;
import jakarta.enterprise.context.ApplicationScoped;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Warns, once per method, when a {@code @RateLimited} method that returns neither {@code Uni} nor {@code Multi} is
 * called on a Vert.x event loop (a non-blocking Quarkus REST endpoint) while decisions go to Valkey or PostgreSQL:
 * the interceptor must decide before such a method runs, so that round trip blocks the loop and every request it
 * serves. The global filter, and the interceptor for Mutiny results ({@link EventLoopOffload}), move their
 * decisions off the loop; here the warning says what to do instead.
 */
@ApplicationScoped
public class EventLoopWarner {

    private static final System.Logger LOG = System.getLogger(EventLoopWarner.class.getName());

    private final BooleanSupplier onEventLoop;
    private final Set<Method> warned = ConcurrentHashMap.newKeySet();

    /** Asks Vert.x whether the current thread is an event loop, where Vert.x is present; else never warns. */
    public EventLoopWarner() {
        this(ClassPresence.present("io.vertx.core.Context", EventLoopWarner.class)
                ? VertxEventLoop::current : () -> false);
    }

    /** With {@code onEventLoop} answering whether the current thread must not block. */
    EventLoopWarner(BooleanSupplier onEventLoop) {
        this.onEventLoop = onEventLoop;
    }

    /**
     * Logs a warning naming {@code method} the first time it is called on an event loop with a blocking decision.
     *
     * @param blocking whether the decision makes a network round trip ({@link RateLimitDecider#blocking()})
     */
    public void check(Method method, boolean blocking) {
        if (blocking && onEventLoop.getAsBoolean() && warned.add(method)) {
            LOG.log(System.Logger.Level.WARNING, RateLimitedMethod.describe(method) + " is @RateLimited and was "
                    + "called on a Vert.x event loop: its Valkey or PostgreSQL round trip blocks the loop. Mark the "
                    + "endpoint that calls it @Blocking (io.smallrye.common.annotation.Blocking), call it from a worker "
                    + "thread, or return a Uni (decided at subscription, off the event loop).");
        }
    }

    /** {@return whether the current thread is a Vert.x event loop, which must not wait} */
    public boolean onEventLoop() {
        return onEventLoop.getAsBoolean();
    }

    /** Loaded only where Vert.x is present. */
    private static final class VertxEventLoop {
        static boolean current() {
            return io.vertx.core.Context.isOnEventLoopThread();
        }
    }
}
