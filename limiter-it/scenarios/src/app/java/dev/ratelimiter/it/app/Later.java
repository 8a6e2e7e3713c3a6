package dev.ratelimiter.it.app;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;

/** Stages that complete a little later on a thread of their own, as a remote call's would. */
final class Later {

    private static final Duration DELAY = Duration.ofMillis(50);

    private Later() {
    }

    /**
     * {@code value}, 50 ms from now, from a new thread. A new thread rather than a shared pool's: it inherits the
     * calling request's context class loader, where a pool thread created for an earlier deployment keeps that
     * deployment's (Open Liberty's own response filters then fail on it).
     */
    static <T> CompletionStage<T> value(T value) {
        CompletableFuture<T> stage = new CompletableFuture<>();
        Thread completer = new Thread(() -> {
            LockSupport.parkNanos(DELAY.toNanos());
            stage.complete(value);
        }, "later");
        completer.setDaemon(true);
        completer.start();
        return stage;
    }
}
