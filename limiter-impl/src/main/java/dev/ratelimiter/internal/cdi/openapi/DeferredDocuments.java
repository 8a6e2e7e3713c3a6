package dev.ratelimiter.internal.cdi.openapi;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * The application's limits for an OpenAPI document built on a thread where {@code CDI.current()} finds no container.
 * Two servers do that: WildFly builds the document while it installs the deployment, before the application's CDI
 * container runs, and serves that same model on every request; Payara Micro 7 builds it on the first request of
 * {@code /openapi}, after the application started, on a thread that reaches no application's container when the
 * application is not at the root context. The library's filter hands its work here ({@link #withLimits}): it waits
 * for the application to start when it has not, and runs at once with the started application's limits when it has.
 *
 * <p>Holds functions of {@link DocumentedLimits}, so this layer touches no MicroProfile OpenAPI type. One per
 * application: the class is loaded from the application's copy of the library. State held in statics, unlike the
 * rest of the library, because the server creates the filter outside CDI, where no bean can hand it anything;
 * {@link OpenApiRegistration} sets it at startup and clears it when the application stops.
 */
public final class DeferredDocuments {

    private static final List<ToIntFunction<Supplier<DocumentedLimits>>> PENDING = new ArrayList<>();
    /** The started application's limits, read with its class loader as the context one; null when not started. */
    private static Supplier<DocumentedLimits> started;

    private DeferredDocuments() {
    }

    /**
     * Runs {@code work} with the application's limits, which it reads (and so may catch what reading them throws): at
     * once when the application has started (on the calling thread, with the application's class loader as its
     * context class loader while the limits are read), else when it starts.
     *
     * @return what {@code work} returned when it ran at once (the operations that got their limits), 0 when it waits
     */
    public static int withLimits(ToIntFunction<Supplier<DocumentedLimits>> work) {
        Supplier<DocumentedLimits> limits;
        synchronized (PENDING) {
            limits = started;
            if (limits == null) {
                PENDING.add(work);
                return 0;
            }
        }
        return work.applyAsInt(limits);
    }

    /**
     * The application has started: {@code limits} answers its limits from now on, and what waited runs with them.
     *
     * @param limits    the application's limits, read when asked (a reload shows in a document built later)
     * @param appLoader the application's class loader, the context class loader while {@code limits} is read
     */
    static void started(Supplier<DocumentedLimits> limits, ClassLoader appLoader) {
        Supplier<DocumentedLimits> withAppLoader = () -> {
            Thread thread = Thread.currentThread();
            ClassLoader before = thread.getContextClassLoader();
            thread.setContextClassLoader(appLoader);
            try {
                return limits.get();
            } finally {
                thread.setContextClassLoader(before);
            }
        };
        List<ToIntFunction<Supplier<DocumentedLimits>>> due;
        synchronized (PENDING) {
            started = withAppLoader;
            due = List.copyOf(PENDING);
            PENDING.clear();
        }
        due.forEach(work -> work.applyAsInt(withAppLoader));
    }

    /** The application stops: its beans go, and a document built from now on waits for a start again. */
    static void stopped() {
        synchronized (PENDING) {
            started = null;
        }
    }
}
