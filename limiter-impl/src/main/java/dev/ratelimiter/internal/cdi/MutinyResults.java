package dev.ratelimiter.internal.cdi;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;

import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * The decision of a {@code Uni} or {@code Multi} method, made at each subscription: a refusal is the failure of
 * the method's own type, and the method runs only once the attempt is allowed, so a resubscription (a retry)
 * counts again. Loaded only for a method whose result type is Mutiny's, so never where Mutiny is absent.
 */
final class MutinyResults {

    private MutinyResults() {
    }

    /**
     * @param decision counts one attempt and returns the refusal to fail with, or {@code null} if allowed
     * @param blocking whether the decision makes a network round trip, so must leave an event loop
     * @param proceed  runs the method, returning its {@code Uni} or {@code Multi}
     */
    static Object defer(ResultType type, Supplier<RuntimeException> decision, boolean blocking,
                        EventLoopOffload offload, Callable<Object> proceed) {
        Uni<Void> allowed = Uni.createFrom().emitter(emitter -> {
            if (!blocking || !offload.offload(decision, (refusal, failure) -> settle(emitter, refusal, failure))) {
                RuntimeException refusal;
                try {
                    refusal = decision.get();
                } catch (RuntimeException e) {
                    emitter.fail(e);
                    return;
                }
                settle(emitter, refusal, null);
            }
        });
        if (type == ResultType.MULTI) {
            return allowed.onItem().transformToMulti(ignored -> {
                try {
                    return (Multi<?>) proceed.call();
                } catch (Exception e) {
                    return Multi.createFrom().failure(e);
                }
            });
        }
        return allowed.onItem().transformToUni(ignored -> {
            try {
                return (Uni<?>) proceed.call();
            } catch (Exception e) {
                return Uni.createFrom().failure(e);
            }
        });
    }

    private static void settle(UniEmitter<? super Void> emitter, RuntimeException refusal, Throwable failure) {
        if (failure != null) {
            emitter.fail(failure);
        } else if (refusal != null) {
            emitter.fail(refusal);
        } else {
            emitter.complete(null);
        }
    }
}
