package dev.ratelimiter.internal.cdi.openapi;

import java.util.ArrayList;
import java.util.List;

/**
 * Work on the OpenAPI document that waits for the application to start. WildFly builds the document while it
 * installs the deployment, before the application's CDI container runs, and serves that same model on every
 * request; the library's filter, finding no container, leaves the adding of the limits here, and
 * {@link OpenApiRegistration} runs it at startup. Holds {@link Runnable}s, so this layer touches no MicroProfile
 * OpenAPI type. One per application: the class is loaded from the application's copy of the library. State held
 * in a static, unlike the rest of the library, because the server creates the filter outside CDI before any bean
 * exists, so no bean can hand the work over; what waits is run and dropped at startup.
 */
public final class DeferredDocuments {

    private static final List<Runnable> PENDING = new ArrayList<>();

    private DeferredDocuments() {
    }

    /** Runs {@code work} when the application starts. */
    public static void atStartup(Runnable work) {
        synchronized (PENDING) {
            PENDING.add(work);
        }
    }

    /** Runs and forgets what waited; called at startup, once the application's beans exist. */
    static void runPending() {
        List<Runnable> due;
        synchronized (PENDING) {
            due = List.copyOf(PENDING);
            PENDING.clear();
        }
        due.forEach(Runnable::run);
    }
}
